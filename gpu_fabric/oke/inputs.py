"""What OKE's layers check of their args (`gpu_fabric/layer_inputs.py`): each field takes the rule
of the stack config field it comes from, and the catalog rules a hosted layer needs (its GPU shape,
claims a node of that shape can hold)."""

import typing
from typing import Any, Literal, cast

from pydantic import AfterValidator

from ..catalog import catalog
from ..config_base import Cidr, SourceRanges, StackModel, VersionText
from ..health.inputs import HEALTH_RULES, health_problems
from ..images import ImageRef
from ..layer_inputs import (
    InputProblem,
    LayerInputs,
    created_or_existing,
    property_path_of,
    same_as,
)
from ..problems import MISSING
from ..storage.config import USES
from ..storage.inputs import STORAGE_RULES, volume_input_problems
from ..workloads.inputs import QUEUE_RULES, queue_problems
from .checks import unknown_gpu_shape
from .claims.config import ClaimShape
from .claims.plan import Claim, plan_claim
from .cloud_args import OkeCloudArgs
from .cloud_rules import cloud_problems
from .cluster.config import OkeClusterConfig, SystemPoolConfig
from .config import OkeDranetConfig
from .ids import ClaimName, ImageId, SubnetId, VcnId
from .lustre.config import CreatedOciLustreConfig, OciLustreVolumeConfig
from .nodes.config import AgentPluginsConfig, GpuNodesConfig, TagPart

PLATFORM: str = typing.get_args(OkeDranetConfig.model_fields["platform"].annotation)[0]
"""The platform whose GPU shapes the layers build."""


def _gpu_shape_of_the_catalog(shape: str) -> str:
    unknown = unknown_gpu_shape(shape, PLATFORM)
    if unknown is not None:
        raise ValueError(unknown)
    return shape


# A GPU shape: well formed (the stack config's rule), and one the catalog has for OKE.
_GPU_SHAPE = same_as(GpuNodesConfig, "shape", AfterValidator(_gpu_shape_of_the_catalog))


def _cloud_problems(args: dict[str, Any]) -> list[InputProblem]:
    """A VCN, created or existing, and the rules of the args (cloud_rules.py, as the stack config
    runs them)."""
    problems = created_or_existing(args, "vcn", "existing_vcn", "a VCN")
    return problems + [
        InputProblem(property_path_of(p.path), p.value, p.message)
        for p in cloud_problems(cast(OkeCloudArgs, args), property_path_of)
    ]


def _fabric_problems(args: dict[str, Any]) -> list[InputProblem]:
    """Each claim must fit a node of the shape (the stack config's rule, `plan_claim`)."""
    shape_name = args["gpu_shape"]
    problems = []
    for i, claim in enumerate(args["claims"]):
        request = Claim(
            claim["name"],
            claim["gpus"],
            claim["rails"],
            claim.get("aligned", True),
            claim.get("roots"),
        )
        try:
            plan_claim(request, catalog().oci_shapes[shape_name], shape_name)
        except ValueError as err:
            problems.append(InputProblem(f"claims[{i}]", claim, str(err)))
    if "gpu_nodes" in args and "gpu_node_ids" not in args:
        problems.append(
            InputProblem(
                "gpuNodeIds",
                MISSING,
                "required with gpuNodes: pass the cloud layer's gpuNodeIds output (the node "
                "waits run again when an instance is replaced; its display name stays)",
            )
        )
    return problems + queue_problems(args) + health_problems(args) + volume_input_problems(args)


CLOUD_INPUTS = LayerInputs(
    {
        "OkeCloudArgs": {
            "tenancy_id": same_as(OkeDranetConfig, "tenancy_ocid"),
            "compartment_id": same_as(OkeDranetConfig, "compartment_id"),
            "cluster_name": same_as(OkeClusterConfig, "name"),
            "kubernetes_version": same_as(OkeClusterConfig, "kubernetes_version"),
            "api_allowed_cidrs": SourceRanges,
            "ssh_allowed_cidrs": SourceRanges,
            "cni": same_as(OkeClusterConfig, "cni"),
            "pods_cidr": Cidr,
            "services_cidr": same_as(OkeClusterConfig, "services_cidr"),
            "max_pods_per_node": same_as(OkeClusterConfig, "max_pods_per_node"),
        },
        "OkeVcn": {
            "vcn_cidr": Cidr,
            "api_subnet_cidr": Cidr,
            "load_balancer_subnet_cidr": Cidr,
            "workers_subnet_cidr": Cidr,
            "pods_subnet_cidr": Cidr,
        },
        "OkeExistingVcn": {
            "vcn_id": VcnId,
            "vcn_cidr": Cidr,
            "api_subnet_id": SubnetId,
            "load_balancer_subnet_id": SubnetId,
            "workers_subnet_id": SubnetId,
            "pods_subnet_id": SubnetId,
        },
        "OkeSystemPool": {
            "shape": same_as(SystemPoolConfig, "shape"),
            "ocpus": same_as(SystemPoolConfig, "ocpus"),
            "memory_gbs": same_as(SystemPoolConfig, "memory_gbs"),
            "node_count": same_as(SystemPoolConfig, "node_count"),
            "image_id": same_as(SystemPoolConfig, "image_id"),
        },
        "OkeFileSystem": {"name": Literal[*USES]},
        "OkeLustreFileSystem": {
            "name": Literal[*USES],
            "file_system_name": same_as(OciLustreVolumeConfig, "filesystem"),
            "capacity_gb": same_as(CreatedOciLustreConfig, "capacity_gb"),
            "throughput_per_tb": same_as(CreatedOciLustreConfig, "throughput_per_tb"),
        },
        "OkeGpuNodes": {
            "shape": _GPU_SHAPE,
            "count": same_as(GpuNodesConfig, "count"),
            "image_id": ImageId,
            "boot_volume_size_gbs": same_as(GpuNodesConfig, "boot_volume_size_gbs"),
            "nvme_raid": Literal[0, 10],
            "capacity_reservation_id": same_as(GpuNodesConfig, "reservation"),
            "ssh_public_key": same_as(GpuNodesConfig, "ssh_public_key"),
            "join_tag_namespace": TagPart,
            "join_tag_key": TagPart,
            "run_command_plugin": same_as(AgentPluginsConfig, "run_command"),
            "rdma_gpu_monitoring_plugin": same_as(AgentPluginsConfig, "rdma_gpu_monitoring"),
        },
    },
    _cloud_problems,
)
"""The checks of `OkeCloud`'s args."""

FABRIC_INPUTS = LayerInputs(
    {
        **QUEUE_RULES,
        **HEALTH_RULES,
        **STORAGE_RULES,
        "OkeFabricArgs": {
            "gpu_shape": _GPU_SHAPE,
            "gpu_node_count": same_as(GpuNodesConfig, "count"),
            "node_wait_timeout": same_as(StackModel, "node_wait_timeout"),
            "dranet_version": VersionText,
            "dranet_image_tag": VersionText,
            "dranet_child_cidr": Cidr,
            "dra_gpu_driver_version": VersionText,
        },
        "OkeClaim": {
            "name": same_as(ClaimShape, "name"),
            "gpus": same_as(ClaimShape, "gpus"),
            "rails": same_as(ClaimShape, "rails"),
            "roots": same_as(ClaimShape, "roots"),
        },
        "OkeNcclTests": {"claims": list[ClaimName], "image": ImageRef},
    },
    _fabric_problems,
)
"""The checks of `OkeFabric`'s args."""
