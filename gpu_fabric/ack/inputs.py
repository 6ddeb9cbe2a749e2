"""What ACK's layers check of their args (`gpu_fabric/layer_inputs.py`): each field takes the rule
of the stack config field it comes from."""

from typing import Any, cast

from pydantic.alias_generators import to_camel

from ..config_base import StackModel
from ..health.inputs import HEALTH_RULES, health_problems
from ..images import ImageRef
from ..layer_inputs import InputProblem, LayerInputs, property_path_of, same_as
from ..problems import MISSING
from ..storage.inputs import STORAGE_RULES, volume_input_problems
from ..workloads.inputs import QUEUE_RULES, queue_problems
from .checks import LINGJUN_VPC_FIX
from .cloud_args import AckCloudArgs
from .cloud_rules import cloud_problems
from .cluster.config import AckClusterConfig, SystemPoolConfig
from .ids import AddonVersion, VswitchId
from .lingjun.config import LingjunConfig
from .network.config import ExistingVpc as ExistingVpcConfig


def _cloud_problems(args: dict[str, Any]) -> list[InputProblem]:
    """The Lingjun cluster's VPC, and the rules of the args (cloud_rules.py, as the stack config
    runs them)."""
    problems = [
        InputProblem(property_path_of(p.path), p.value, p.message)
        for p in cloud_problems(cast(AckCloudArgs, args))
    ]
    if "existing_vpc" not in args:
        problems.append(InputProblem("existingVpc", MISSING, f"{LINGJUN_VPC_FIX} (existingVpc)"))
    return problems


CLOUD_INPUTS = LayerInputs(
    {
        "AckCloudArgs": {
            "cluster_name": same_as(AckClusterConfig, "name"),
            "kubernetes_version": same_as(AckClusterConfig, "kubernetes_version"),
            "service_cidr": same_as(AckClusterConfig, "service_cidr"),
            "ip_stack": same_as(AckClusterConfig, "ip_stack"),
            "proxy_mode": same_as(AckClusterConfig, "proxy_mode"),
            "rdma_addon_version": AddonVersion,
        },
        "AckExistingVpc": {
            "vpc_id": same_as(ExistingVpcConfig, "vpc_id"),
            "node_vswitch_ids": list[VswitchId],
            "pod_vswitch_ids": list[VswitchId],
        },
        "AckSystemPool": {
            "instance_types": same_as(SystemPoolConfig, "instance_types"),
            "node_count": same_as(SystemPoolConfig, "node_count"),
            "key_name": same_as(SystemPoolConfig, "key_name"),
            "system_disk_size": same_as(SystemPoolConfig, "system_disk_size"),
        },
        "AckLingjun": {
            "pool_name": same_as(LingjunConfig, "pool_name"),
            "cluster_id": same_as(LingjunConfig, "cluster_id"),
            "group_id": same_as(LingjunConfig, "group_id"),
        },
    },
    _cloud_problems,
)
"""The checks of `AckCloud`'s args."""


def _fabric_problems(args: dict[str, Any]) -> list[InputProblem]:
    """The training queue's CRD gate runs kubectl on the cluster: it needs its kubeconfig and id."""
    problems = queue_problems(args) + health_problems(args) + volume_input_problems(args)
    if "training_queue" in args:
        problems += [
            InputProblem(
                to_camel(key), MISSING, "required with trainingQueue (its CRD gate); set it"
            )
            for key in ("kubeconfig", "cluster_id")
            if key not in args
        ]
    return problems


FABRIC_INPUTS = LayerInputs(
    {
        **QUEUE_RULES,
        **HEALTH_RULES,
        **STORAGE_RULES,
        "AckFabricArgs": {"benchmark_image": ImageRef},
        "AckLingjunNodes": {
            "count": same_as(LingjunConfig, "node_count"),
            "group_id": same_as(LingjunConfig, "group_id"),
            "timeout": same_as(StackModel, "node_wait_timeout"),
        },
    },
    _fabric_problems,
)
"""The checks of `AckFabric`'s args."""
