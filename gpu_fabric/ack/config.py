"""Typed stack configuration of the `ack-lingjun` platform: models and per-field checks.

Stack files hold `gpu-fabric:*` keys in camelCase plus the provider key this program reads,
`alicloud:region` (vSwitch zones must be zones of it). Cross-field rules live in `checks.py`.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, Field

from ..catalog import catalog
from ..config_base import (
    ADVISED_SYSTEM_NODES,
    Cidr,
    ConfigModel,
    Layers,
    NodeCount,
    StackModel,
    system_node_count,
)
from ..images import ImageRef
from ..problems import key
from ..versions import AckVersionOrMinorText, AddonVersionText

REGION_KEY = "alicloud:region"

# Alibaba resource ids: `vpc-...`, `vsw-...` (TF: pod_vswitch_ids must match `^vsw-`).
_VPC_ID = re.compile(r"^vpc-[a-z0-9]+$")
_VSWITCH_ID = re.compile(r"^vsw-[a-z0-9]+$")
# Lingjun (eflo) cluster and node group ids. No published rule; the shapes come from the APIs' own
# examples. Cluster ids: an `i` and digits (eflo-controller `ClusterId` i118191731740041623425; CS
# CreateClusterNodePool `eflo_node_group.cluster_id` i1169130516633730****).
_LINGJUN_ID = re.compile(r"^i[0-9a-z]{6,}$")
# Node group ids come in more forms:
# - `i` and digits: eflo-controller and the provider's own examples (`eflo.NodeGroupAttachment`
#   node_group_id i127582271753269898630, TF docs r/eflo_node_group_attachment);
# - `ng-` and lowercase hex: the CS API's CreateClusterNodePool `eflo_node_group.group_id` example
#   `ng-ec3c96ff0aa****` (alibabacloud cs20151215 SDK, CreateClusterNodePoolRequestEfloNodeGroup);
# - digits only: reported by a user; UNVERIFIED (no published example found), accepted
#   so that a real id is never refused here.
_LINGJUN_GROUP_ID = re.compile(r"^(i[0-9a-z]{6,}|ng-[0-9a-z]{6,}|[0-9]{6,})$")
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
# Zone ids are the region id and a letter: `-h` after a region that ends in a word
# (cn-hangzhou-h, cn-wulanchabu-c), the bare letter after one that ends in a number
# (ap-southeast-1a, cn-shanghai-finance-1z); lower case (Alibaba Cloud docs, "Regions and zones",
# https://www.alibabacloud.com/help/en/ecs/product-overview/regions-and-zones).
_ZONE_ID = re.compile(r"^[a-z]{2}(-[a-z0-9]+)*(-[a-z]|-[a-z0-9]*[0-9][a-z])$")
# ECS instance types are `ecs.<family>.<size>` in lower case (ecs.g7.xlarge, ecs.gn7i-c8g1.2xlarge;
# Alibaba Cloud ECS docs, "Instance families", and the provider's examples).
_INSTANCE_TYPE = re.compile(r"^ecs\.[a-z0-9-]+\.[a-z0-9]+$")
# Key pair names: 2 to 128 characters, a letter first, then letters, digits, colons, underscores and
# hyphens (ECS API CreateKeyPair, `KeyPairName`,
# https://www.alibabacloud.com/help/en/ecs/developer-reference/api-ecs-2014-05-26-createkeypair);
# periods too, which older versions of the same page list, so that no real name is refused. The
# console takes Chinese names as well: "letter" is any Unicode letter (Python's `\w` less digits
# and `_`), so 密钥-1 passes.
_KEY_PAIR_NAME = re.compile(r"^[^\W\d_][\w.:-]{1,127}$")


def _matching(pattern: re.Pattern, what: str, example: str):
    def check(value: str) -> str:
        if not pattern.match(value):
            raise ValueError(f"not {what}; copy it from the console, e.g. {example}")
        return value

    return check


def _name(value: str) -> str:
    if not _NAME.match(value) or len(value) > 40:
        raise ValueError(
            "must be 1-40 characters of lowercase letters, digits and hyphens, starting and "
            "ending with a letter or digit (it prefixes every resource name; ACK allows 63)"
        )
    return value


def _ip_stack(value: str) -> str:
    if value == "dual":
        raise ValueError(
            "Lingjun node pools support only IPv4 single-stack ACK clusters (Alibaba, 'Create and "
            "manage a Lingjun node pool'); use ipv4. Non-hostNetwork RDMA needs an IPv6 Lingjun "
            "computing network instead: gpu-fabric:lingjun.computingNetwork"
        )
    if value != "ipv4":
        raise ValueError("must be ipv4 (the only stack a Lingjun node pool supports)")
    return value


def _zone_id(value: str) -> str:
    if value != value.strip() or value != value.lower():
        raise ValueError(
            'zone ids are lower case, without spaces around them (Alibaba Cloud docs, "Regions '
            f'and zones"); write {value.strip().lower()!r}'
        )
    if not _ZONE_ID.match(value):
        raise ValueError(
            "not a zone id: the region id and a zone letter, e.g. cn-wulanchabu-c or "
            "ap-southeast-1a (`aliyun vpc DescribeZones --RegionId <region>`)"
        )
    return value


def _instance_type(value: str) -> str:
    if _INSTANCE_TYPE.match(value):
        return value
    guess = value.strip().lower()
    if guess and not guess.startswith("ecs."):
        guess = f"ecs.{guess}"
    fix = f"did you mean {guess!r}?" if _INSTANCE_TYPE.match(guess) else "e.g. ecs.g7.xlarge"
    raise ValueError(
        "not an ECS instance type: ecs.<family>.<size> in lower case (`aliyun ecs "
        f"DescribeInstanceTypes`); {fix}"
    )


def _key_pair_name(value: str) -> str:
    if _KEY_PAIR_NAME.match(value):
        return value
    stripped = value.strip()
    fix = (
        f"did you mean {stripped!r}?"
        if stripped != value and _KEY_PAIR_NAME.match(stripped)
        else "use the name `aliyun ecs DescribeKeyPairs` lists"
    )
    raise ValueError(
        "not an ECS key pair name: 2 to 128 characters, a letter first, then letters, digits, "
        f"., :, _ and - (ECS API CreateKeyPair); {fix}"
    )


AckVersion = AckVersionOrMinorText
ZoneId = Annotated[str, AfterValidator(_zone_id)]
InstanceType = Annotated[str, AfterValidator(_instance_type)]
KeyPairName = Annotated[str, AfterValidator(_key_pair_name)]
VpcId = Annotated[str, AfterValidator(_matching(_VPC_ID, "a VPC id", "vpc-bp1abc..."))]
VswitchId = Annotated[str, AfterValidator(_matching(_VSWITCH_ID, "a vSwitch id", "vsw-bp1abc..."))]
LingjunId = Annotated[
    str,
    AfterValidator(
        _matching(
            _LINGJUN_ID,
            "a Lingjun (eflo) id: an `i` and lowercase letters or digits",
            "i118191731740041623425 (Lingjun console, or `aliyun eflo-controller ListClusters`)",
        )
    ),
]
LingjunGroupId = Annotated[
    str,
    AfterValidator(
        _matching(
            _LINGJUN_GROUP_ID,
            "a Lingjun (eflo) node group id: an `i` and digits, `ng-` and lowercase letters or "
            "digits, or digits only",
            "i120021051733814190732 or ng-ec3c96ff0aa1 (Lingjun console, or `aliyun "
            "eflo-controller ListNodeGroups`)",
        )
    ),
]
Name = Annotated[str, AfterValidator(_name)]
IpStack = Annotated[str, AfterValidator(_ip_stack)]
AddonVersion = AddonVersionText


class ComputingNetwork(str, Enum):
    """The IP version of the Lingjun cluster's computing (RDMA) network, chosen when it was made."""

    IPV4 = "ipv4"
    IPV6 = "ipv6"


# --- sections ----------------------------------------------------------------------------------


class ExistingVswitch(ConfigModel):
    """A vSwitch that exists already; its zone and range are repeated for the plan-time checks."""

    id: VswitchId = Field(description="The vSwitch id, `vsw-...`.")
    zone_id: ZoneId = Field(description="Its zone.")
    cidr: Cidr = Field(description="Its range.")


class ExistingVpc(ConfigModel):
    vpc_id: VpcId = Field(description="The VPC id, `vpc-...`: the Lingjun cluster's VPC.")
    vpc_cidr: Cidr = Field(description="The VPC's range (for the plan-time checks).")
    # At least one of each: checks.py names the Lingjun zone in its message.
    node_vswitches: list[ExistingVswitch] = Field(description="Node vSwitches.")
    pod_vswitches: list[ExistingVswitch] = Field(description="Terway pod vSwitches.")
    deploy_path: str | None = Field(
        None,
        description="How the host that runs `pulumi up` reaches the intranet API endpoint (a VPN "
        "gateway, Express Connect, CEN): with it, `layers: all` is allowed.",
    )


class AckNetworkConfig(ConfigModel):
    """The Lingjun cluster's VPC and vSwitches (`existing`): ACK requires the ACK and Lingjun
    clusters in one VPC, and a Lingjun cluster is created outside the stack, so the stack creates
    no VPC."""

    existing: ExistingVpc | None = Field(
        None,
        description="The Lingjun cluster's VPC and its vSwitches, required: ACK requires the ACK "
        "and Lingjun clusters in one VPC.",
    )


class SystemPoolConfig(ConfigModel):
    """The ordinary ECS node pool for ACK's system components (Alibaba recommends 3 nodes)."""

    instance_types: list[InstanceType] = Field(
        default_factory=lambda: ["ecs.g7.xlarge"],
        min_length=1,
        description="ECS instance types of the system pool, first choice first; GPU families "
        "(`ecs.gn*`, `ecs.ebmgn*`, `ecs.sgn*`, `ecs.vgn*`) are refused.",
    )
    node_count: Annotated[
        NodeCount,
        system_node_count(
            "Lingjun nodes are tainted for GPU work",
            "set 3 (the default, Alibaba's recommendation)",
        ),
    ] = Field(3, description="System nodes: at least 1 (1 warns; Alibaba recommends 3 or more).")
    key_name: KeyPairName = Field(
        description="ECS key pair of the nodes (ACK needs a key pair or a password; a key it is)."
    )
    system_disk_category: str = Field(
        "cloud_essd", description="System disk category of the system nodes."
    )
    system_disk_size: int = Field(120, ge=40, le=2048, description="System disk size, GiB.")


class AckClusterConfig(ConfigModel):
    """The ACK managed Pro cluster."""

    name: Name = Field(
        description="Cluster name, 1-40 characters; also the prefix of every resource name."
    )
    kubernetes_version: AckVersion = Field(
        description="An ACK minor, e.g. 1.33, which the stack resolves at preview to ACK's newest "
        "patch of it (`alicloud.cs.get_kubernetes_version`), or a full version in ACK's "
        "`-aliyun.N` form to pin, e.g. 1.33.3-aliyun.1; 1.31 or newer. A minor is the version at "
        "creation: upgrades are yours (ACK console or API), and the stack does not roll them "
        "back; a pinned version stays managed."
    )
    service_cidr: Cidr = Field("192.168.0.0/16", description="Service range, outside the VPC.")
    ip_stack: IpStack = Field("ipv4", description="Only ipv4: Lingjun pools refuse dual stack.")
    proxy_mode: Literal["ipvs", "iptables"] = Field("ipvs", description="kube-proxy mode.")
    public_endpoint: bool = Field(
        False,
        description="An internet SLB for the API server; refused: its SLB has no allow-list this "
        "stack can set.",
    )
    deletion_protection: bool = Field(
        True, description="ACK deletion protection and Pulumi `protect` on the cluster."
    )
    system_pool: SystemPoolConfig


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


class RdmaConfig(ConfigModel):
    """The `ack-rdma-device-plugin` add-on."""

    addon_version: AddonVersion | None = Field(
        None, description="`ack-rdma-device-plugin` version; default from the catalog."
    )
    non_host_network: bool = Field(
        False,
        description="RDMA for non-hostNetwork pods: only with an IPv6 computing network and "
        "add-on 1.1.0 or newer.",
    )
    non_host_network_key: str | None = Field(
        None,
        description="The switch's JSON key in the add-on config; default from the catalog "
        "(UNVERIFIED there); checked at preview against the catalog's recorded schema and at "
        "deploy time against the add-on's own.",
    )


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
