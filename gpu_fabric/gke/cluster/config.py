"""The stack config of the GKE cluster (`gpu-fabric:gke`): its name, version and release channel,
who reaches its control plane, its CPU system pool and its nodes' service account."""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated

from pydantic import AfterValidator, Field

from ...config_base import ConfigModel, NodeCount, SourceRange, system_node_count
from ...versions import GkeVersionOrMinorText
from ..names import ClusterName, MachineType


class ReleaseChannel(str, Enum):
    """GKE release channels (GKE docs, "About release channels"); UNSPECIFIED: none."""

    UNSPECIFIED = "UNSPECIFIED"
    RAPID = "RAPID"
    REGULAR = "REGULAR"
    STABLE = "STABLE"
    EXTENDED = "EXTENDED"


# GKE Standard's default, and its limits ("Configure maximum Pods per node", flexible-pod-cidr).
GKE_DEFAULT_MAX_PODS_PER_NODE = 110


class AuthorizedNetwork(ConfigModel):
    cidr_block: SourceRange = Field(
        description="A range allowed to reach the control plane; no `/0`."
    )
    display_name: str = Field("", description="Label shown in the console.")


SYSTEM_POOL_NAME = "system"
"""The CPU system pool's node pool name (a GPU pool may not take it)."""


class SystemPoolConfig(ConfigModel):
    """The small CPU pool that runs system pods (the default pool is removed)."""

    machine_type: MachineType = Field(
        "e2-standard-4",
        description="Machine type of the CPU system pool; a GPU family (`a2-`, `a3-`, `a4-`, "
        "`a4x-`, `g2-`, `g4-`) is refused.",
    )
    node_count: Annotated[
        NodeCount,
        system_node_count("the default pool is removed", "set 1 or more", per=" per zone"),
    ] = Field(1, description="System nodes per zone of the cluster's region, at least 1.")


NODE_ACCOUNT_ROLES = ("roles/container.defaultNodeServiceAccount", "roles/artifactregistry.reader")
"""Least privilege for node VMs: Google's role for GKE node service accounts (logging,
monitoring, metadata: GKE docs, "Use least privilege IAM service accounts"), and the image reads
cluster-toolkit grants its node accounts (`roles/artifactregistry.reader`), for images in the
project's own registries."""


_ROLE = re.compile(r"^(roles|projects/[a-z][-a-z0-9]{4,28}[a-z0-9]/roles)/[\w.]+$")


def _role(value: str) -> str:
    if not _ROLE.match(value):
        raise ValueError(
            "not an IAM role name: a predefined role (roles/artifactregistry.reader) or a "
            "project's custom role (projects/PROJECT/roles/ROLE)"
        )
    return value


NodeAccountRole = Annotated[str, AfterValidator(_role)]
"""A predefined role (`roles/artifactregistry.reader`) or a project's custom role."""


class MonitoringConfig(ConfigModel):
    """What GKE sends to Cloud Monitoring (the cluster's `monitoringConfig`), as cluster-toolkit's
    gke-cluster sets it by default (modules/scheduler/gke-cluster main.tf, variables.tf)."""

    dcgm: bool | None = Field(
        None,
        description="GKE's managed DCGM metrics of the GPUs (utilisation, memory, clocks, "
        "power, NVLink and PCIe traffic; XID and ECC counts are UNVERIFIED there), through "
        "managed Prometheus. GKE installs its own drivers for them, so "
        "default: on, and off where a pool's driver comes from a bundle "
        "(`driverInstall: bundle`), where it is refused.",
    )
    managed_prometheus: bool = Field(
        True,
        description="Google Cloud Managed Service for Prometheus (managed collection): the DCGM "
        "metrics, and what the cluster's PodMonitorings scrape.",
    )


class GkeConfig(ConfigModel):
    """The GKE Standard cluster."""

    name: ClusterName = Field(description="Cluster name (1-40 characters).")
    version: GkeVersionOrMinorText = Field(
        description="A GKE minor, e.g. 1.33, which GKE resolves to its newest patch (of the "
        "release channel, if any) at preview through `gcp.container.get_engine_versions`, or a "
        "full version to pin, e.g. 1.33.5-gke.1862000 (GKE stops offering a patch after some "
        "months: a new pool then fails). At or above the machine's floors (its minimum minor, "
        "the fabric's patch floor of the minor, checked on the resolved patch) and below its "
        "limits; under cluster-toolkit's later security patch only a warning. Set at creation: "
        "GKE moves it later (upgrades), and the pools keep what GKE set."
    )
    deletion_protection: bool = Field(True, description="GKE deletion protection of the cluster.")
    private_nodes: bool = Field(True, description="Nodes without external IP addresses.")
    master_authorized_networks: list[AuthorizedNetwork] | None = Field(
        None,
        description="`{cidrBlock, displayName}` ranges allowed to reach the control plane, not "
        "empty (include where `pulumi up` runs); unset: any address (a warning).",
    )
    release_channel: ReleaseChannel | None = Field(
        None,
        description="GKE's release channel. Default: the machine's (catalog "
        "`gke.release_channel`): `REGULAR`, as cluster-toolkit's GPU blueprints, and `EXTENDED` "
        "for A3 High, whose last COS-121 minor (1.33) it keeps longest. In a channel GKE keeps "
        "the versions current, with cluster-toolkit's maintenance exclusion of minor and node "
        "upgrades until the minor's end of support (of extended support on `EXTENDED`, which "
        "GKE bills for that period); `gke.version` is the creation version, and node "
        "auto-upgrade is on (GKE requires it in a channel). `UNSPECIFIED`: no channel, "
        "`gke.version` pinned, node auto-upgrade off (the GPUDirect guides; GKE still upgrades "
        "a minor at its end of support).",
    )
    system_pool: SystemPoolConfig = Field(default_factory=SystemPoolConfig)
    monitoring: MonitoringConfig = Field(default_factory=MonitoringConfig)
    node_account_roles: list[NodeAccountRole] = Field(
        default_factory=lambda: list(NODE_ACCOUNT_ROLES),
        min_length=1,
        description="Project roles of the nodes' service account: GKE's node role and what the "
        "nodes pull with (Artifact Registry reader, as cluster-toolkit grants); keep "
        "roles/container.defaultNodeServiceAccount (logging, monitoring).",
    )
    max_pods_per_node: int | None = Field(
        None,
        ge=8,
        le=256,
        description="The cluster's default max pods per node; GKE's 110 when unset. Set at "
        "creation (a change replaces the cluster); the pod range must hold every node at it.",
    )
