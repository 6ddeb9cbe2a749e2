"""The stack config of the Lingjun node pool (`gpu-fabric:lingjun`)."""

from __future__ import annotations

from enum import Enum

from pydantic import Field

from ...config_base import (
    ConfigModel,
)
from ..ids import (
    LingjunGroupId,
    LingjunId,
    Name,
    ZoneId,
)


class ComputingNetwork(str, Enum):
    """The IP version of the Lingjun cluster's computing (RDMA) network, chosen when it was made."""

    IPV4 = "ipv4"
    IPV6 = "ipv6"


class LingjunConfig(ConfigModel):
    """The pre-existing Lingjun (Lite) cluster and node group the Lingjun node pool binds."""

    cluster_id: LingjunId = Field(description="The Lingjun (Lite) cluster id, `i...`.")
    group_id: LingjunGroupId = Field(
        description="Lingjun node group id (i..., ng-... or digits), in no other pool; not the "
        "cluster id."
    )
    zone_id: ZoneId = Field(description="The Lingjun cluster's zone; a pod vSwitch must be in it.")
    computing_network: ComputingNetwork = Field(
        ComputingNetwork.IPV4,
        description="ipv4 or ipv6: the computing network's IP version (set when it was created).",
    )
    pool_name: Name = Field("lingjun", description="The Lingjun node pool's name.")
    node_count: int = Field(
        ge=0,
        le=1000,
        description="Nodes of the group you add to the Lingjun pool (console: Add Existing Node; "
        "nothing in the stack can). The fabric layer waits up to 30 minutes for them, Ready with "
        "rdma/hca, and fails naming that step. 0: no wait (a warning).",
    )
