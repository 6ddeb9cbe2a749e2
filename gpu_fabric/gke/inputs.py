"""What GKE's layers check of their args (`gpu_fabric/layer_inputs.py`): each field takes the rule
of the stack config field it comes from, and the catalog rules a hosted layer needs (its machine
type, the disks it boots from, one Network object per NIC)."""

from typing import Any, Literal, cast

from pydantic import AfterValidator

from ..catalog import catalog
from ..config_base import Cidr, SourceRanges, StackModel
from ..health.inputs import HEALTH_RULES, health_problems
from ..images import ImageRef
from ..layer_inputs import (
    InputProblem,
    LayerInputs,
    created_or_existing,
    property_path_of,
    same_as,
)
from ..storage.inputs import STORAGE_RULES, volume_input_problems
from ..versions import ChartVersionText
from ..workloads.config import TrainingNamespace
from ..workloads.inputs import QUEUE_RULES, queue_problems
from .buckets.config import GcsVolumeConfig
from .buckets.fuse import ROLES
from .cloud_args import GkeCloudArgs
from .cloud_rules import cloud_problems
from .cluster.config import AuthorizedNetwork, GkeConfig, SystemPoolConfig
from .config import GkeStackConfig, StorageClassConfig
from .filestore.config import CreatedFilestoreConfig, FilestoreVolumeConfig
from .lustre.config import CreatedLustreConfig, LustreVolumeConfig
from .names import ResourceName
from .network.config import Mtu
from .pool.config import (
    BootDiskConfig,
    GpuPoolConfig,
    ReservationConfig,
    UpgradeConfig,
    pool_options,
)
from .pool.rules import (
    unknown_machine_type,
)


def _in_catalog(machine_type: str) -> str:
    if machine_type not in catalog().machines:
        raise ValueError(unknown_machine_type(machine_type))
    return machine_type


# A GPU machine type: well formed (the stack config's rule), and one the catalog has.
_GPU_MACHINE_TYPE = same_as(GpuPoolConfig, "machine_type", AfterValidator(_in_catalog))


def _cloud_problems(args: dict[str, Any]) -> list[InputProblem]:
    """A primary network, created or existing, and every rule of the cloud layer's args
    (cloud_rules.py, as the stack config runs them), at their property paths."""
    problems = created_or_existing(args, "primary_network", "existing_network", "a network")
    typed = cast(GkeCloudArgs, args)
    return problems + [
        InputProblem(property_path_of(p.path), p.value, p.message)
        for p in cloud_problems(typed, property_path_of)
    ]


def _fabric_problems(args: dict[str, Any]) -> list[InputProblem]:
    machine_type, names = args["machine_type"], args["network_object_names"]
    nics = sum(group.count for group in catalog().machines[machine_type].nic_groups)
    problems = queue_problems(args) + health_problems(args) + volume_input_problems(args)
    if len(names) != nics:
        problems.append(
            InputProblem(
                "networkObjectNames",
                names,
                f"{machine_type} has {nics} GPU NICs; give {nics} names, one per NIC in NIC order",
            )
        )
    return problems


CLOUD_INPUTS = LayerInputs(
    {
        "GkeCloudArgs": {
            "cluster_name": same_as(GkeConfig, "name"),
            "project": same_as(GkeStackConfig, "project"),
            "region": same_as(GkeStackConfig, "region"),
            "version": same_as(GkeConfig, "version"),
            "system_machine_type": same_as(SystemPoolConfig, "machine_type"),
            "system_node_count": same_as(SystemPoolConfig, "node_count"),
            "max_pods_per_node": same_as(GkeConfig, "max_pods_per_node"),
            "node_account_roles": same_as(GkeConfig, "node_account_roles"),
            "release_channel": same_as(GkeConfig, "release_channel"),
        },
        "GkeGpuNetwork": {
            "network_name": ResourceName,
            "mtu": Mtu,
            "firewall_source_ranges": SourceRanges,
        },
        "GkeSubnet": {"name": ResourceName, "cidr": Cidr},
        "GkePrimaryNetwork": {
            "subnet_cidr": Cidr,
            "pods_cidr": Cidr,
            "services_cidr": Cidr,
            "mtu": Mtu,
        },
        "GkeTrainingBucket": {
            "bucket": same_as(GcsVolumeConfig, "bucket"),
            "role": Literal[*ROLES.values()],
            "namespaces": list[TrainingNamespace],
        },
        "GkeFilestoreInstance": {
            "tier": same_as(CreatedFilestoreConfig, "tier"),
            "capacity_gb": same_as(CreatedFilestoreConfig, "capacity_gb"),
            "share": same_as(FilestoreVolumeConfig, "share"),
        },
        "GkeLustreInstance": {
            "filesystem": same_as(LustreVolumeConfig, "filesystem"),
            "capacity_gib": same_as(CreatedLustreConfig, "capacity_gib"),
            "throughput_per_tib": same_as(CreatedLustreConfig, "throughput_per_tib"),
        },
        "GkeAuthorizedNetwork": {"cidr_block": same_as(AuthorizedNetwork, "cidr_block")},
        "GkeGpuPool": {
            "name": same_as(GpuPoolConfig, "name"),
            "machine_type": _GPU_MACHINE_TYPE,
            "node_count": same_as(GpuPoolConfig, "node_count"),
            "gpu_driver_version": same_as(GpuPoolConfig, "gpu_driver_version"),
            "boot_disk_size_gb": same_as(BootDiskConfig, "size_gb"),
            "reservation": same_as(ReservationConfig, "name"),
            "reservation_project": same_as(ReservationConfig, "project"),
            "max_surge": same_as(UpgradeConfig, "max_surge"),
            "max_unavailable": same_as(UpgradeConfig, "max_unavailable"),
            **{option: same_as(GpuPoolConfig, option) for option in pool_options()},
        },
    },
    _cloud_problems,
)
"""The checks of `GkeCloud`'s args."""

FABRIC_INPUTS = LayerInputs(
    {
        **QUEUE_RULES,
        **HEALTH_RULES,
        **STORAGE_RULES,
        "GkeFabricArgs": {
            "machine_type": _GPU_MACHINE_TYPE,
            "nri_device_injector_image": ImageRef,
            "nvlink_driver_version": ChartVersionText,
            "gpu_node_count": same_as(GpuPoolConfig, "node_count"),
            "node_wait_timeout": same_as(StackModel, "node_wait_timeout"),
        },
        "GkeInstaller": {"image": ImageRef, "pause_image": ImageRef},
        "GkeSmokeTest": {"test_image": ImageRef, "daemon_image": ImageRef},
        "GkeStorageClass": {"name": same_as(StorageClassConfig, "name")},
    },
    _fabric_problems,
)
"""The checks of `GkeFabric`'s args."""
