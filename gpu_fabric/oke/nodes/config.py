"""The stack config of the RDMA GPU nodes (`gpu-fabric:gpuNodes`): shape, count, image, join."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from ...config_base import (
    ConfigModel,
    NodeCount,
)
from ..ids import (
    CapacityReservationId,
    ImageId,
    Shape,
)
from .ssh_keys import SshPublicKeys

# A defined tag: namespace and key are letters, digits, `-` and `_` (OCI docs, "Tags").
_TAG_PART = re.compile(r"^[A-Za-z0-9_-]{1,100}$")


def _tag_part(value: str) -> str:
    if not _TAG_PART.match(value):
        raise ValueError("a tag namespace or key: letters, digits, - and _ only")
    return value


TagPart = Annotated[str, AfterValidator(_tag_part)]


class JoinTagConfig(ConfigModel):
    """An existing defined tag that marks the GPU nodes, so the dynamic group that may join the
    cluster matches them alone instead of every instance of the compartment."""

    namespace: TagPart = Field(description="The tag namespace (it must exist).")
    key: TagPart = Field(description="The tag key in it (it must exist).")


class AgentPluginsConfig(ConfigModel):
    """Oracle Cloud Agent plugins beyond the two RDMA ones, which oci-hpc-oke also enables."""

    run_command: bool = Field(
        False,
        description="Compute Instance Run Command: commands sent to the nodes through the OCI "
        "API (off: it is a remote shell for whoever holds the IAM right).",
    )
    rdma_gpu_monitoring: bool = Field(
        False, description="Compute RDMA GPU Monitoring: GPU and RDMA health metrics."
    )


class GpuNodesConfig(ConfigModel):
    """The self-managed RDMA GPU nodes, in one compute cluster."""

    shape: Shape = Field("BM.GPU.B4.8", description="A GPU shape of the catalog (`oci_shapes`).")
    count: NodeCount = Field(description="GPU nodes, 0 or more.")
    availability_domain: str = Field(
        description="The AD of the compute cluster, e.g. Uocm:US-ASHBURN-AD-1, one for all nodes "
        "(checked against the region's AD count)."
    )
    image_id: ImageId = Field(
        description="A GPU image OCID with the NVIDIA driver and DOCA-OFED (as oci-hpc-oke "
        "imports), of `oci:region`."
    )
    boot_volume_size_gbs: int = Field(512, ge=50, le=32768, description="Boot volume, GB.")
    reservation: CapacityReservationId | None = Field(
        None,
        description="A compute capacity reservation the GPU instances launch under (its OCID; "
        'OCI docs, "Capacity Reservations"), as bare-metal GPU capacity usually comes; unset: '
        "the compartment's default reservation, if any, else on-demand capacity. Updatable in "
        "place. UNVERIFIED that a reservation holds instances of a compute cluster in every "
        "region: a preview cannot tell, the launch fails if not.",
    )
    ssh_public_key: SshPublicKeys | None = Field(
        None,
        description="Authorized SSH public keys of the nodes, one `TYPE BASE64 [COMMENT]` line "
        "each (a .pub file's contents; never a private key or a path).",
    )
    join_tag: JoinTagConfig | None = Field(
        None,
        description="An existing defined tag set to the cluster name on the GPU nodes; the join "
        "dynamic group matches only them.",
    )
    nvme_raid: Literal[0, 10] | None = Field(
        None,
        description="Stripe the nodes' local NVMe drives into one array at first boot (RAID 0 "
        "or 10; four or more drives for 10, fewer are striped as 0) and put the container "
        "runtime's storage, the pods' ephemeral storage and logs on it, as oci-hpc-oke does. "
        "Unset: off (oci-hpc-oke's default is on, RAID 10). Read at first boot: a change "
        "reaches new instances only.",
    )
    agent_plugins: AgentPluginsConfig = Field(
        default_factory=lambda: AgentPluginsConfig(),
        description="Optional Oracle Cloud Agent plugins (the two RDMA plugins are always on); "
        "read at creation: a change reaches new instances only.",
    )
