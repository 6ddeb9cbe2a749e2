"""A GPU node pool's stack config (`gpu-fabric:gpuPool`, or each of `gpuPools`): its keys and
their per-field rules. A field marked `POOL_OPTION` reaches the node pool as it is written."""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from ...config_base import ConfigModel, NodeCount
from ...durations import Timeout
from ..names import GcpProjectId, MachineType, NodePoolName

# A reservation, or one block of it (`gcloud compute reservations blocks list`).
_RESERVATION = re.compile(
    r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?(/reservationBlocks/[a-z]([-a-z0-9]{0,61}[a-z0-9])?)?$"
)


def _reservation(value: str) -> str:
    if not _RESERVATION.match(value):
        raise ValueError(
            "not a reservation name: lowercase letters, digits and hyphens, or "
            "NAME/reservationBlocks/BLOCK to target one block"
        )
    return value


ReservationName = Annotated[str, AfterValidator(_reservation)]


class GpuDriverVersion(str, Enum):
    """`gpu_driver_installation_config.gpu_driver_version` of a GKE GPU node pool."""

    DEFAULT = "DEFAULT"
    LATEST = "LATEST"
    INSTALLATION_DISABLED = "INSTALLATION_DISABLED"


class DriverInstall(str, Enum):
    """Who installs the NVIDIA driver (NVIDIA AICR's A4X networking guide, "Driver Installer")."""

    GKE = "gke"
    """GKE installs it (`gpuDriverVersion`)."""
    BUNDLE = "bundle"
    """A bundle installs it: GKE's install is disabled and its device plugin opted out."""


class ReservationConfig(ConfigModel):
    """Consume a specific Compute Engine reservation."""

    name: ReservationName = Field(
        description="Reservation name, or NAME/reservationBlocks/BLOCK for one block of it."
    )
    project: GcpProjectId | None = Field(
        None, description="Owner project of a shared reservation; default: `gcp:project`."
    )


class BootDiskConfig(ConfigModel):
    type: str | None = Field(
        None,
        description="Boot disk type, one the machine can attach; default: the catalog's first "
        "(`pd-balanced` on A3, `hyperdisk-balanced` on A4X).",
    )
    size_gb: int = Field(200, ge=10, le=65536, description="Boot disk size in GB.")


class UpgradeConfig(ConfigModel):
    """How GKE upgrades a pool's nodes (surge upgrade): extra nodes, and nodes down at once.

    Unset keys take cluster-toolkit's gke-node-pool defaults (variables.tf `upgrade_settings`,
    main.tf `coalesce(max_surge, 0)`, `coalesce(max_unavailable, 1)`).
    """

    max_surge: int = Field(
        0, ge=0, description="Extra nodes GKE creates during an upgrade (0: none)."
    )
    max_unavailable: int = Field(
        1, ge=0, description="Nodes upgraded (unavailable) at once; not both 0."
    )


POOL_OPTION: dict = {"pool_option": True}
"""Marks a `GpuPoolConfig` field the node pool takes as it is written (`json_schema_extra`): `make
docs` writes its field into the hosted pool args (`GkeGpuPool`, by tools/pool_options.py), the
hosted layer checks it with this field's rule, and the node pool reads it with `pool_option`."""


def pool_options() -> list[str]:
    """The `GpuPoolConfig` fields marked POOL_OPTION, in their order."""
    return [
        name
        for name, field in GpuPoolConfig.model_fields.items()
        if field.json_schema_extra == POOL_OPTION
    ]


class CapacityMode(str, Enum):
    """Where a GPU pool's nodes come from (XPK's `--reservation`, `--on-demand`, `--flex`,
    `--spot`; cluster-toolkit gke-node-pool's `reservation_affinity`, `enable_flex_start`,
    `spot`)."""

    RESERVATION = "reservation"
    """A specific reservation (`reservation`)."""
    ON_DEMAND = "on-demand"
    """On-demand VMs (GKE's default affinity: a matching reservation first, if any)."""
    FLEX_START = "flex-start"
    """Dynamic Workload Scheduler flex-start VMs: obtained when available, run at most 7 days."""
    SPOT = "spot"
    """Spot VMs: cheaper, preempted when Compute Engine needs them back."""


class AutoscalingConfig(ConfigModel):
    """The cluster autoscaler on the pool, from `nodeCount` (its minimum) to `maxNodes`."""

    max_nodes: int = Field(
        ge=1, le=1000, description="Most nodes the autoscaler gives the pool (1-1000)."
    )
    location_policy: Literal["ANY", "BALANCED"] = Field(
        "ANY",
        description="`ANY` (unused reservations first, less Spot preemption; cluster-toolkit's) "
        "or `BALANCED`.",
    )


class GpuPoolConfig(ConfigModel):
    """The GPU node pool."""

    name: NodePoolName = Field("gpu-pool", description="GPU node pool name, unique, not `system`.")
    machine_type: MachineType = Field(
        description="A catalog machine type of the platform: `a3-highgpu-8g`, `a3-megagpu-8g`, "
        "`a4x-highgpu-4g`, `a3-ultragpu-8g` or `a4-highgpu-8g`."
    )
    zone: str = Field(
        description="The pool's one zone, inside `region` (compact placement is zonal; on A4X "
        "also the RoCE profile's zone)."
    )
    node_count: NodeCount = Field(
        description="GPU nodes, 0 or more; with `autoscaling`, the fewest the autoscaler keeps "
        "(what `pulumi up` waits for)."
    )
    capacity: CapacityMode | None = Field(
        None,
        description="Where the nodes come from: `reservation` (the pool's `reservation`), "
        "`on-demand`, `flex-start` (needs `autoscaling`; not on A4X) or `spot`. Default: "
        "`reservation` with a `reservation`, else `on-demand`. A change replaces the pool.",
    )
    queued_provisioning: bool = Field(
        False,
        description="Flex-start nodes through GKE's ProvisioningRequest API only: a job gets all "
        "its nodes at once, asked by Kueue's ProvisioningRequest admission check (the training "
        "queue adds it). With `capacity: flex-start`, `nodeCount: 0`, no compact placement.",
        json_schema_extra=POOL_OPTION,
    )
    autoscaling: AutoscalingConfig | None = Field(
        None,
        description="The cluster autoscaler from `nodeCount` up to `maxNodes` (unset: a fixed "
        "`nodeCount`); flex-start pools need it.",
    )
    driver_install: DriverInstall = Field(
        DriverInstall.GKE,
        description="Who installs the NVIDIA driver: `gke`, or `bundle` (GKE's install disabled, "
        "plus the device-plugin opt-out label).",
    )
    gpu_driver_version: GpuDriverVersion | None = Field(
        None,
        description="The GKE-installed driver version, with `driverInstall: gke` only; default "
        "`LATEST`.",
    )
    local_ssd: bool | None = Field(
        None,
        description="The catalog's local SSD count (16 on A3) as ephemeral storage; default "
        "`true` where the catalog has a count, refused where it has none.",
    )
    compact_placement: bool | None = Field(
        None,
        description="Compact placement through the catalog's policy (A3 `COLLOCATED`; A4X "
        "workload policy 1x72, at most 18 nodes). Default: on, but off for a pool that consumes "
        "a reservation on A3 Ultra and A4 (reserved capacity is densely colocated already, and "
        "cluster-toolkit's examples set no placement policy on reserved pools); a change "
        "replaces the pool.",
    )
    reservation: ReservationConfig | None = Field(
        None,
        description="Consume a specific reservation (one stack per reservation and zone); "
        "default: any matching reservation.",
    )
    boot_disk: BootDiskConfig = Field(default_factory=BootDiskConfig)
    upgrade: UpgradeConfig = Field(
        default_factory=UpgradeConfig,
        description="Surge upgrade settings; default maxSurge 0, maxUnavailable 1: one node at a "
        "time, in place (a reservation or quota in full use has no node to surge into), as "
        "cluster-toolkit's gke-node-pool.",
    )
    allow_unsupported_gke_version: bool = Field(
        False,
        description="Accept a GKE minor the catalog marks unsupported for the machine type (A3 "
        "High on 1.34+, catalog `gke.unsupported_from_minor`).",
    )
    fast_socket: bool = Field(
        False, description="NCCL Fast Socket; refused, no fabric here allows it."
    )
    accelerator_network_profile: str | None = Field(
        None,
        description="GKE-managed accelerator networking (`auto`); refused, it conflicts with the "
        "stack's own NICs.",
    )
    create_timeout: Timeout = Field(
        "60m",
        description="How long Pulumi waits for the pool's creation (90m, 2h); GPU nodes boot, "
        "install their driver and attach every NIC before GKE reports the pool running.",
        json_schema_extra=POOL_OPTION,
    )
    update_timeout: Timeout = Field(
        "60m",
        description="How long Pulumi waits for an update of the pool (90m, 2h); an upgrade "
        "replaces one node at a time, so a pool of many nodes needs more.",
        json_schema_extra=POOL_OPTION,
    )

    @property
    def most_nodes(self) -> int:
        """The most nodes the pool can have: its autoscaler's maximum, or its fixed count (as
        `args.most_nodes` reads them from the pool's args)."""
        return self.autoscaling.max_nodes if self.autoscaling else self.node_count
