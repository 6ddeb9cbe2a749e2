"""Typed stack configuration of the `ack-lingjun` platform: models and per-field checks.

Stack files hold `gpu-fabric:*` keys in camelCase plus the provider key this program reads,
`alicloud:region` (vSwitch zones must be zones of it). Cross-field rules live in `checks.py`.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from ..catalog import catalog
from ..config_base import (
    ADVISED_SYSTEM_NODES,
    ConfigModel,
    Layers,
    StackModel,
)
from ..images import ImageRef
from ..problems import key
from ..storage.config import STORAGE_DESCRIPTION
from .cluster.config import AckClusterConfig
from .cpfs.config import AckStorageConfig
from .lingjun.config import LingjunConfig
from .network.config import AckNetworkConfig, ExistingVswitch
from .rdma.config import RdmaConfig

REGION_KEY = "alicloud:region"


# --- sections ----------------------------------------------------------------------------------


class AckImagesConfig(ConfigModel):
    benchmark: ImageRef | None = Field(
        None,
        description="Image of the benchmark Job of Alibaba's Lingjun RDMA guide; required with "
        "`benchmarkJob`.",
    )


class AckLingjunConfig(StackModel):
    """ack-lingjun: ACK Pro with a Lingjun node pool and the RDMA Device Plugin (Alibaba's
    Lingjun RDMA guide)."""

    platform: Literal["ack-lingjun"] = Field(description="What the stack builds.")
    alicloud_region: str = Field(
        alias=REGION_KEY,
        description="The Alibaba Cloud region (the provider's own key), e.g. cn-wulanchabu.",
    )
    network: AckNetworkConfig = Field(default_factory=AckNetworkConfig)
    ack: AckClusterConfig
    lingjun: LingjunConfig
    rdma: RdmaConfig = Field(default_factory=RdmaConfig)
    storage: AckStorageConfig = Field(  # type: ignore[assignment]
        default_factory=AckStorageConfig, description=STORAGE_DESCRIPTION
    )
    images: AckImagesConfig = Field(default_factory=AckImagesConfig)
    benchmark_job: bool = Field(
        False,
        description="The `hps-benchmark` Job of Alibaba's Lingjun RDMA guide, built with "
        "`with_lingjun_rdma`.",
    )

    ONLY_HERE: ClassVar[dict[str, str]] = {}
    FABRIC_KEYS: ClassVar[dict[str, str]] = {
        **StackModel.FABRIC_KEYS,
        "images": "the benchmark Job runs in the cluster",
        "benchmark_job": "the benchmark Job runs in the cluster",
    }

    # Derived values, so components never re-derive defaults.

    @property
    def rdma_addon_version(self) -> str:
        return self.rdma.addon_version or catalog().ack.rdma_device_plugin.version

    @property
    def non_host_network_key(self) -> str:
        return (
            self.rdma.non_host_network_key or catalog().ack.rdma_device_plugin.non_host_network_key
        )

    @property
    def node_vswitches(self) -> list[ExistingVswitch]:
        existing = self.network.existing
        return list(existing.node_vswitches) if existing else []

    @property
    def pod_vswitches(self) -> list[ExistingVswitch]:
        existing = self.network.existing
        return list(existing.pod_vswitches) if existing else []

    @property
    def cluster_name(self) -> str:
        """The name every resource of the stack derives from."""
        return self.ack.name

    @property
    def owned_names(self) -> dict[str, tuple[str, str]]:
        """Names that must be unique in their scope: stack key -> (scope, name)."""
        return {"ack.name": (f"region {self.alicloud_region}", f"cluster {self.ack.name}")}

    @property
    def exclusive_resources(self) -> dict[str, tuple[str, str, str]]:
        """Existing resources this stack names that only one stack may hold: stack key -> (scope,
        resource, why). The Lingjun node group: a Lingjun node pool is created bound to one
        node group (CS API CreateClusterNodePool `eflo_node_group`), and a group's nodes join
        that one pool; a second stack's pool on it would fail to bind, or take the group's nodes
        from the first. A Lingjun cluster holds several groups: `lingjun.clusterId` is shared."""
        return {
            "lingjun.groupId": (
                f"region {self.alicloud_region}",
                f"Lingjun node group {self.lingjun.group_id}",
                "a Lingjun node group binds to one node pool only",
            )
        }

    @property
    def warnings(self) -> list[str]:
        """Advice that is not fatal: the stack deploys, but you may want to change it."""
        warnings = []
        if self.lingjun.node_count == 0:
            warnings.append(
                f"{key('lingjun.nodeCount')}: 0, so `pulumi up` does not check that any Lingjun "
                "node joined the pool (ACK adds none by itself: Add Existing Node); set how many "
                "you add (warning, not fatal)"
            )
        count = self.ack.system_pool.node_count
        if count < ADVISED_SYSTEM_NODES:
            warnings.append(
                f"{key('ack.systemPool.nodeCount')}: {count} system node is a single point of "
                "failure: when it goes, CoreDNS and the other system pods have nowhere to move; "
                f"set {ADVISED_SYSTEM_NODES} or more (Alibaba recommends 3) (warning, not fatal)"
            )
        plugin = catalog().ack.rdma_device_plugin
        recorded = plugin.config_schema.keys.get(self.non_host_network_key)
        adds_the_addon = self.layers is not Layers.FABRIC
        if adds_the_addon and self.rdma.non_host_network and recorded and not recorded.verified:
            # The preview check reads the catalog's record, which holds the same guess: only
            # `pulumi up` (the add-on's live schema, nodes.addon_config) can refuse it.
            warnings.append(
                f"{key('rdma.nonHostNetworkKey')}: {self.non_host_network_key} is UNVERIFIED as "
                f"the key of {plugin.name}'s non-hostNetwork RDMA switch (Alibaba does not publish "
                "it); `pulumi up` checks it against the add-on's live config schema and fails "
                "naming the schema's boolean keys if it is not there; once the key is read there, "
                "record it in the catalog as verified (warning, not fatal)"
            )
        return warnings
