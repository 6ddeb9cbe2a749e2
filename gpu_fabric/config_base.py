"""What every platform's stack config is made of: the base model, the platforms, shared field types.

Per-field checks live on the types here (a CIDR parses, a count is not negative); each platform's
models (`components/<platform>/config.py`) use them, and its cross-field rules live beside them.
"""

from __future__ import annotations

import ipaddress
import re
from enum import Enum
from typing import TYPE_CHECKING, Annotated, ClassVar

from pydantic import AfterValidator, BeforeValidator, Field

from .config_model import ConfigModel
from .durations import Timeout
from .health.config import HealthConfig
from .storage.config import STORAGE_DESCRIPTION, StorageConfig, TrainingVolumeConfig
from .workloads.config import QueuesConfig


class Layers(str, Enum):
    """What a stack runs (`gpu-fabric:layers`)."""

    ALL = "all"
    """The cloud layer and the fabric layer, in one `pulumi up`."""
    CLOUD = "cloud"
    """Network, cluster and GPU nodes only; a fabric stack does the rest."""
    FABRIC = "fabric"
    """The in-cluster objects only, on the cluster of `gpu-fabric:cloudStack`."""


_NAME_PART = r"(?!\.\.?(/|$))[A-Za-z0-9_.-]{1,100}"
"""A part of a stack reference: Pulumi's name characters, at most 100 of them (Pulumi Cloud's
limit on stack and project names), never `.` or `..`."""
_STACK_REFERENCE = re.compile(rf"^{_NAME_PART}(/{_NAME_PART}/{_NAME_PART})?$")


def is_stack_reference(value: str) -> bool:
    """`value` names a stack as `gpu-fabric:cloudStack` takes it."""
    return isinstance(value, str) and bool(_STACK_REFERENCE.match(value))


def _stack_reference(value: str) -> str:
    if not is_stack_reference(value):
        raise ValueError(
            "must name a stack as <organization>/<project>/<stack> (or just <stack> in the "
            "same project and organization), as `pulumi stack ls` shows it: letters, digits, "
            "`-`, `_` and `.`, at most 100 of them per part"
        )
    return value


class StackModel(ConfigModel):
    """A whole stack's config: what every platform has at its top level."""

    layers: Layers = Field(
        Layers.ALL,
        description="Which layers this stack runs: `all`, `cloud` or `fabric` (a split "
        "deployment, docs/architecture.md).",
    )
    cloud_stack: Annotated[str, AfterValidator(_stack_reference)] | None = Field(
        None,
        description="The cloud stack whose outputs a fabric stack reads "
        "(`<org>/<project>/<stack>` or `<stack>`); required with `layers: fabric`.",
    )

    queues: QueuesConfig = Field(
        default_factory=QueuesConfig,
        description="The training queue users' jobs go through (Kueue and JobSet).",
    )
    health: HealthConfig = Field(
        default_factory=HealthConfig,
        description="What watches the GPU nodes: checks, a taint on failed nodes, alerts, metrics.",
    )
    storage: StorageConfig[TrainingVolumeConfig] = Field(
        default_factory=StorageConfig[TrainingVolumeConfig],
        description=STORAGE_DESCRIPTION,
    )
    node_wait_timeout: Timeout | None = Field(
        None,
        description="How long `pulumi up` waits for every GPU node to be usable (Ready, no taint "
        "but the GPU taint, its GPUs and NICs advertised, its fabric pods running) before it "
        "fails naming each node and what it lacks (90m, 2h); default the platform's: 40m where "
        "the wait counts from the instances' creation, 30m where it counts from the pools'.",
    )

    ONLY_HERE: ClassVar[dict[str, str]]
    """Keys of this platform alone, with why they mean nothing elsewhere (each platform sets it)."""
    FABRIC_KEYS: ClassVar[dict[str, str]] = {
        "queues": "the training queue is in the cluster",
        "health": "the node checks, alert rules and metrics are in the cluster",
        "node_wait_timeout": "the wait for usable GPU nodes is in-cluster",
    }
    """Top-level fields only the fabric layer reads, with where they act (each platform adds its
    own). Every other field but `STACK_KEYS` is the cloud layer's: a split deployment keeps it in
    the cloud stack, whose `cloudConfig` output the fabric stack reads (stack_config/split.py)."""
    STACK_KEYS: ClassVar[tuple[str, ...]] = ("platform", "layers", "cloud_stack")
    """Top-level fields of every stack, whichever layers it runs."""
    if TYPE_CHECKING:
        # Declared for type checkers only: a field here would be a key of every platform.
        platform: str
        """`gpu-fabric:platform`; each platform's model narrows it to its own names."""

    @property
    def cluster_name(self) -> str:
        """The name every resource of the stack derives from (the platform's cluster name)."""
        raise NotImplementedError


# Ranges no network of ours may use: what they are, for the message.
_SPECIAL_RANGES = [
    (ipaddress.IPv4Network("0.0.0.0/8"), "'this network' (0.0.0.0/8)"),
    (ipaddress.IPv4Network("127.0.0.0/8"), "loopback (127.0.0.0/8)"),
    (ipaddress.IPv4Network("169.254.0.0/16"), "link-local (169.254.0.0/16, the metadata server's)"),
    (ipaddress.IPv4Network("224.0.0.0/4"), "multicast (224.0.0.0/4)"),
    (ipaddress.IPv4Network("240.0.0.0/4"), "reserved (240.0.0.0/4)"),
]
# Private and shared address space (RFC 1918, RFC 6598): not "the internet".
_PRIVATE = [
    ipaddress.IPv4Network(n)
    for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10")
]
WIDEST_PUBLIC_SOURCE = 2**24
"""Sources may together admit at most a /8 of public addresses (the rule is semantic: two /1
halves are the whole internet as surely as 0.0.0.0/0)."""


def _cidr_text(value: str) -> ipaddress.IPv4Network:
    if "/" not in value:
        raise ValueError(
            f"has no prefix length; write the range, e.g. {value}/32 for one address or "
            f"{value}/24 for its /24"
        )
    try:
        network = ipaddress.ip_network(value, strict=True)
    except ValueError as err:
        raise ValueError(
            f"not a CIDR range ({err}); write it as ADDRESS/PREFIX, e.g. 192.168.1.0/24"
        ) from None
    if network.version != 4:
        raise ValueError(
            "only IPv4 ranges are supported here; use an IPv4 CIDR such as 10.0.0.0/20"
        )
    return network


def _cidr(value: str) -> str:
    network = _cidr_text(value)
    for special, what in _SPECIAL_RANGES:
        if network.overlaps(special) and network.prefixlen > 0:
            raise ValueError(f"overlaps the {what} range, which no network may use; pick another")
    return str(network)


def _source_range(value: str) -> str:
    network = _cidr_text(value)
    if network.prefixlen == 0:
        raise ValueError(
            "a range open to the whole internet is refused; list only the ranges that need to "
            "connect (a VPN, a bastion, your offices, or the network's own subnets)"
        )
    return str(network)


def public_addresses(cidrs: list[str]) -> int:
    """How many public (not private or shared) addresses the ranges admit together."""
    remaining = list(ipaddress.collapse_addresses(ipaddress.IPv4Network(c) for c in cidrs))
    for private in _PRIVATE:
        remaining = [
            part
            for network in remaining
            for part in (
                network.address_exclude(private)
                if private.subnet_of(network)
                else ([] if network.subnet_of(private) else [network])
            )
        ]
    return sum(n.num_addresses for n in ipaddress.collapse_addresses(remaining))


def _not_the_internet(cidrs: list[str]) -> list[str]:
    public = public_addresses(cidrs)
    if public > WIDEST_PUBLIC_SOURCE:
        raise ValueError(
            f"together these ranges admit {public:,} public addresses, more than a /8: that is "
            "open to the internet in all but name; list only the ranges that need access (a VPN, "
            "a bastion, your offices), or reach it from inside the network"
        )
    return cidrs


MAX_NODES = 1000
"""The most nodes one pool may ask for (GKE's limit per node pool and zone; far beyond any GPU
reservation), so a typo of a few zeros is caught here and not by a quota error an hour later."""


def _node_count(value: int) -> int:
    if value < 0:
        raise ValueError("a node count cannot be negative; use 0 to keep the pool empty")
    if value > MAX_NODES:
        raise ValueError(f"more than {MAX_NODES} nodes in one pool; check the number")
    return value


Cidr = Annotated[str, AfterValidator(_cidr)]
"""An IPv4 range without host bits."""
SourceRange = Annotated[str, AfterValidator(_source_range)]
"""An IPv4 range that may reach something: never /0."""
SourceRanges = Annotated[list[SourceRange], AfterValidator(_not_the_internet)]
"""Ranges that may reach something: together, never the internet."""
NodeCount = Annotated[int, AfterValidator(_node_count)]


MIN_SYSTEM_NODES = 1
"""Fewest system nodes: with none, CoreDNS and the other system pods have nothing to run on."""
ADVISED_SYSTEM_NODES = 2
"""Below this the system pods have no second node to move to (a warning, not fatal)."""


def system_node_count(why: str, fix: str, per: str = "") -> BeforeValidator:
    """A system pool's node count: at least `MIN_SYSTEM_NODES`. `why`: why no other node takes the
    system pods on this platform; `fix`: the count to set; `per`: " per zone" where it counts so."""

    def check(value: object) -> object:
        if isinstance(value, int) and not isinstance(value, bool) and value < MIN_SYSTEM_NODES:
            raise ValueError(
                f"the system pool needs at least 1 node{per}: with none, CoreDNS and the other "
                f"system pods have nothing to run on ({why}); {fix}"
            )
        return value

    return BeforeValidator(check)


_VERSION_TEXT = re.compile(r"^[\w][\w.+-]{0,127}$")


def _version_text(value: str) -> str:
    if not _VERSION_TEXT.match(value) or value == "latest":
        raise ValueError(
            "must be a pinned version or tag, e.g. 1.5.0 (not latest, no digest or spaces); "
            "remove the key to use the catalog's"
        )
    return value


"""A pinned container image: parsed, with a tag or digest, never `latest`."""
VersionText = Annotated[str, AfterValidator(_version_text)]
"""A version or tag as text, never empty."""
