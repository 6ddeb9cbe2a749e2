"""A GPU pool's layer args (`GkeGpuPool`) from the stack config, and where each of their fields is
written in a stack file: the one map between a pool's stack keys and its property paths, so a rule
of the pool's args (pool_rules.py) names either."""

from __future__ import annotations

from typing import cast

from pydantic.alias_generators import to_camel

from .cloud_args import GkeGpuPool
from .config import DriverInstall, GkeStackConfig, GpuPoolConfig, placement_policy_name

# NVIDIA AICR's A4X networking guide: with a bundle-installed driver, GKE's own device plugin
# stays off these nodes.
NO_GKE_DEVICE_PLUGIN_LABEL = {"gke-no-default-nvidia-gpu-device-plugin": "true"}


STACK_KEYS = {
    "boot_disk_type": "bootDisk.type",
    "boot_disk_size_gb": "bootDisk.sizeGb",
    "max_surge": "upgrade.maxSurge",
    "max_unavailable": "upgrade.maxUnavailable",
}
"""A `GkeGpuPool` field -> its key under the stack file's pool (`gpu-fabric:gpuPool.`, or
`gpuPools[i].`), where it is not the field's camel-case name."""


def pool_key(index: int, field: str | None) -> str:
    """Where a stack file's `gpuPools` list writes a pool's args field: `gpuPools[1].zone`."""
    return stack_path_of(field).replace("gpuPool.", f"gpuPools[{index}].", 1)


def stack_path_of(field: str | None) -> str:
    """Where a stack file writes a pool's args field (None: the cluster's GKE version), as the
    single pool's key (`gpuPool.upgrade.maxSurge`; checks.py moves it to `gpuPools[i]`)."""
    if field is None:
        return "gke.version"
    return f"gpuPool.{STACK_KEYS.get(field, to_camel(field))}"


def pool_args(cfg: GkeStackConfig, pool: GpuPoolConfig) -> GkeGpuPool:
    """The pool's typed args: its settings under their own names, then what the stack derives."""
    keys = GkeGpuPool.__required_keys__ | GkeGpuPool.__optional_keys__
    same_name = {
        key: value
        for key, value in pool.model_dump(mode="json").items()
        if key in keys and value is not None and not isinstance(value, dict)
    }
    out = cast(GkeGpuPool, same_name)
    out["gpu_driver_version"] = cfg.gpu_driver_version_of(pool).value
    out["local_ssd_count"] = cfg.local_ssd_count_of(pool)
    out["boot_disk_type"] = cfg.boot_disk_type_of(pool)
    out["boot_disk_size_gb"] = pool.boot_disk.size_gb
    if pool.driver_install is DriverInstall.BUNDLE:
        out["labels"] = NO_GKE_DEVICE_PLUGIN_LABEL
    if cfg.compact_placement_of(pool):
        out["compact_placement_name"] = placement_policy_name(cfg.gke.name, pool.name)
    if pool.reservation:
        out["reservation"] = pool.reservation.name
        if pool.reservation.project:
            out["reservation_project"] = pool.reservation.project
    out["max_surge"] = pool.upgrade.max_surge
    out["max_unavailable"] = pool.upgrade.max_unavailable
    return out
