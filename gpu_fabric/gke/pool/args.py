"""A GPU node pool's layer args (`GkeGpuPool`), which a hosted `GkeCloud` takes per pool and the
node pool (component.py) reads, and where a stack file writes each of their fields."""

from typing import NotRequired, TypedDict

import pulumi
from pydantic.alias_generators import to_camel


class GkeGpuPool(TypedDict):
    """A GPU node pool on the layer's GPU networks."""

    name: str
    """Node pool name."""
    zone: str
    """Its one zone."""
    machine_type: str
    """A machine type of the catalog (a3-highgpu-8g, a4x-highgpu-4g, ...); it decides the GPUs."""
    node_count: int
    """Nodes (with `max_node_count`: the fewest the autoscaler keeps, what the fabric waits
    for)."""
    gpu_driver_version: str
    """GKE-installed driver (`LATEST`, `DEFAULT`) or `INSTALLATION_DISABLED`."""
    local_ssd_count: int
    """Local SSDs for ephemeral storage (0: none)."""
    boot_disk_type: str
    """Boot disk type."""
    boot_disk_size_gb: int
    """Boot disk size."""
    labels: NotRequired[dict[str, str]]
    """Node labels."""
    compact_placement_name: NotRequired[str]
    """Name of a compact placement policy for the pool (none: no compact placement)."""
    reservation: NotRequired[pulumi.Input[str]]
    """A specific reservation to consume (name; an Output too, e.g. another stack's, checked
    once known)."""
    reservation_project: NotRequired[str]
    """The owner project of a shared reservation."""
    max_surge: NotRequired[int]
    """Surge upgrade: extra nodes during an upgrade (unset: 0)."""
    max_unavailable: NotRequired[int]
    """Surge upgrade: nodes upgraded, unavailable, at once (unset: 1)."""
    capacity: NotRequired[str]
    """Where the nodes come from: `reservation`, `on-demand`, `flex-start` or `spot` (unset:
    `reservation` with a `reservation`, else `on-demand`)."""
    max_node_count: NotRequired[int]
    """The autoscaler's most nodes (unset: a fixed `node_count`; set: `node_count` is its
    fewest)."""
    location_policy: NotRequired[str]
    """The autoscaler's location policy: `ANY` (unset) or `BALANCED`."""
    allow_unsupported_gke_version: NotRequired[bool]
    """Accept a GKE minor the catalog marks unsupported for the machine type (A3 High on 1.34+)."""
    # BEGIN GENERATED: pool options (`make docs`, from GpuPoolConfig: tools/pool_options.py)
    queued_provisioning: NotRequired[bool]
    (
        "Flex-start nodes through GKE's ProvisioningRequest API only: a job gets all its nodes at"
        " once, asked by Kueue's ProvisioningRequest admission check (the training queue adds "
        "it). With `capacity: flex-start`, `nodeCount: 0`, no compact placement."
    )
    create_timeout: NotRequired[str]
    (
        "How long Pulumi waits for the pool's creation (90m, 2h); GPU nodes boot, install their "
        "driver and attach every NIC before GKE reports the pool running."
    )
    update_timeout: NotRequired[str]
    (
        "How long Pulumi waits for an update of the pool (90m, 2h); an upgrade replaces one node "
        "at a time, so a pool of many nodes needs more."
    )
    # END GENERATED


STACK_KEYS = {
    "boot_disk_type": "bootDisk.type",
    "boot_disk_size_gb": "bootDisk.sizeGb",
    "max_surge": "upgrade.maxSurge",
    "max_unavailable": "upgrade.maxUnavailable",
    "reservation_project": "reservation.project",
    "max_node_count": "autoscaling.maxNodes",
    "location_policy": "autoscaling.locationPolicy",
    # The stack names a pool's compact placement policy after the pool (`<cluster>-<pool>-compact`).
    "compact_placement_name": "name",
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


def most_nodes(pool: GkeGpuPool) -> int:
    """The most nodes the pool can have: its autoscaler's maximum, or its fixed count."""
    return pool.get("max_node_count", pool["node_count"])


def capacity_of(pool: GkeGpuPool) -> str:
    """The pool's capacity mode: as given, else `reservation` where it names one, else
    `on-demand` (the stack config's default too)."""
    return pool.get("capacity") or ("reservation" if pool.get("reservation") else "on-demand")
