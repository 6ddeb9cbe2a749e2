"""Cross-field rules of the `ack-lingjun` stack configuration.

What ACK and the RDMA add-on would refuse only after `pulumi up` (or never: the non-hostNetwork
switch on an IPv4 computing network "does not take effect", says Alibaba's Lingjun RDMA guide) is
refused here, with the key, the value and the fix.
"""

from __future__ import annotations

import ipaddress
import itertools
import re

from ..catalog import catalog
from ..config_base import Layers
from ..health.config import PrometheusOwner
from ..health.from_stack import health_problems
from ..layer_inputs import stack_key_in
from ..problems import (
    MISSING,
    Problem,
    deploy_path_without_effect,
    private_endpoint_fix,
    timeout_without_wait,
)
from ..problems import key as _key
from ..storage.rules import storage_problems
from ..workloads.checks import queue_problems
from .cloud_args import STACK_KEYS, cloud_args
from .cloud_rules import cloud_problems
from .config import REGION_KEY, AckLingjunConfig
from .cpfs.rules import cpfs_problems
from .lingjun.config import ComputingNetwork

# Alibaba region ids: cn-wulanchabu, cn-hangzhou, ap-southeast-1; zones add `-<letter>`.
_REGION = re.compile(r"^[a-z]+-[a-z]+(-\d+)?$")


HEALTH_PROMETHEUS = (PrometheusOwner.STACK, PrometheusOwner.EXTERNAL)
"""The Prometheus owners the platform offers: no managed one the stack could send to (OKE has
none; ACK's add-on is UNVERIFIED, DAY2.md)."""

POD_SECURITY = (
    "privileged",
    "the RDMA pods run on the host network (unless the IPv6 pod network is on) and add IPC_LOCK "
    "and SYS_RESOURCE (Alibaba's Lingjun RDMA guide); Baseline forbids both",
)
"""What the runtime's pods need of the training namespace's Pod Security level, and why."""


def cross_field_problems(cfg: AckLingjunConfig) -> list[Problem]:
    """Every cross-field problem of an ack-lingjun stack."""
    problems = _region_checks(cfg)
    problems += queue_problems(cfg.queues, catalog().ack.topology_levels, POD_SECURITY)
    problems += timeout_without_wait(cfg.node_wait_timeout, cfg.lingjun.node_count)
    problems += health_problems(cfg.health, HEALTH_PROMETHEUS, "ACK")
    problems += storage_problems(cfg.storage, cfg.queues)
    problems += cpfs_problems(cfg.storage)
    # The rules of the cloud layer's args, as a hosted AckCloud runs them (cloud_rules.py).
    problems += [
        Problem(_key(stack_key_in(p.path, STACK_KEYS)), p.value, p.message)
        for p in cloud_problems(cloud_args(cfg))
    ]
    problems += _rdma_checks(cfg)
    problems += _network_checks(cfg)
    problems += _reachability(cfg)
    if cfg.images.benchmark and not cfg.benchmark_job:
        problems.append(
            Problem(
                _key("images.benchmark"),
                cfg.images.benchmark,
                "has no effect without gpu-fabric:benchmarkJob: true; set that, or remove it",
            )
        )
    if cfg.rdma.non_host_network_key and not cfg.rdma.non_host_network:
        problems.append(
            Problem(
                _key("rdma.nonHostNetworkKey"),
                cfg.rdma.non_host_network_key,
                "has no effect unless rdma.nonHostNetwork is true; remove it",
            )
        )
    if cfg.benchmark_job and not cfg.images.benchmark:
        problems.append(
            Problem(
                _key("images.benchmark"),
                None,
                "the benchmark Job needs an image (Alibaba's Lingjun RDMA guide leaves it out): "
                "set gpu-fabric:images.benchmark, or remove gpu-fabric:benchmarkJob",
            )
        )
    return problems


def _region_checks(cfg: AckLingjunConfig) -> list[Problem]:
    region = cfg.alicloud_region
    if not _REGION.match(region):
        return [
            Problem(REGION_KEY, region, "not an Alibaba Cloud region id; use e.g. cn-wulanchabu")
        ]
    problems = []
    zones = [(_key("lingjun.zoneId"), cfg.lingjun.zone_id)]
    zones += [(f"{key}.zoneId", v.zone_id) for key, v in _vswitches(cfg)]
    # A zone is the region id and a letter: `-c` after a word, the bare letter after a number
    # (cn-wulanchabu-c, ap-southeast-1a; config._ZONE_ID has the source).
    joint = "" if region[-1].isdigit() else "-"
    for key, zone in zones:
        if not re.fullmatch(rf"{re.escape(region + joint)}[a-z]", zone):
            problems.append(
                Problem(
                    key,
                    zone,
                    f"not a zone of {region}; use one of its zones (e.g. {region}{joint}c), or "
                    f"change {REGION_KEY}",
                )
            )
    return problems


def _rdma_checks(cfg: AckLingjunConfig) -> list[Problem]:
    """The add-on's switch for RDMA off the host network on the Lingjun computing network (which
    the layer's args do not carry; the switch's key and add-on version: cloud_rules.py)."""
    if not cfg.rdma.non_host_network or cfg.lingjun.computing_network is ComputingNetwork.IPV6:
        return []
    return [
        Problem(
            _key("rdma.nonHostNetwork"),
            True,
            "RDMA for non-hostNetwork pods needs an IPv6 Lingjun computing network, and "
            f"gpu-fabric:lingjun.computingNetwork is {cfg.lingjun.computing_network.value} "
            "(the switch would not take effect, says Alibaba's Lingjun RDMA guide); remove "
            "nonHostNetwork and run RDMA "
            "pods with hostNetwork, or bind a Lingjun cluster created with IPv6 (ticket to the "
            "Lingjun team) and set computingNetwork: ipv6",
        )
    ]


def _vswitches(cfg: AckLingjunConfig):
    """(stack key, vSwitch) of every node and pod vSwitch."""
    where = "network.existing"
    return [
        *((_key(f"{where}.nodeVswitches[{i}]"), v) for i, v in enumerate(cfg.node_vswitches)),
        *((_key(f"{where}.podVswitches[{i}]"), v) for i, v in enumerate(cfg.pod_vswitches)),
    ]


# Alibaba Cloud vSwitch CIDR blocks are /16 to /29 (VPC docs, "Create and manage a vSwitch").
VSWITCH_PREFIXES = (16, 29)


LINGJUN_VPC_FIX = (
    "a Lingjun node pool binds a Lingjun cluster that exists already, in its own VPC, and ACK "
    'requires the ACK cluster in that same VPC (Alibaba, "Create a LINGJUN node pool": "in '
    'the same region and VPC"); a VPC this stack creates holds no Lingjun cluster. Set '
    "network.existing to the Lingjun cluster's VPC (vpcId, vpcCidr) and its vSwitches "
    "(nodeVswitches, and podVswitches with one in the Lingjun zone)"
)


def _network_checks(cfg: AckLingjunConfig) -> list[Problem]:
    problems: list[Problem] = []
    network, existing = cfg.network, cfg.network.existing
    if existing is None:
        written = network.model_dump(by_alias=True, exclude_unset=True)
        return [Problem(_key("network"), written or MISSING, LINGJUN_VPC_FIX)]
    where = "network.existing"
    for part, vswitches in (
        ("nodeVswitches", cfg.node_vswitches),
        ("podVswitches", cfg.pod_vswitches),
    ):
        for i, vswitch in enumerate(vswitches):
            prefix = ipaddress.ip_network(vswitch.cidr).prefixlen
            if not VSWITCH_PREFIXES[0] <= prefix <= VSWITCH_PREFIXES[1]:
                problems.append(
                    Problem(
                        _key(f"{where}.{part}[{i}].cidr"),
                        vswitch.cidr,
                        f"a vSwitch range is a /{VSWITCH_PREFIXES[0]} to /{VSWITCH_PREFIXES[1]} "
                        '(VPC docs, "Create a vSwitch"); Terway pods and nodes take their '
                        "addresses here, so pick a larger range",
                    )
                )
    if cfg.pod_vswitches and not any(v.zone_id == cfg.lingjun.zone_id for v in cfg.pod_vswitches):
        problems.append(
            Problem(
                _key(f"{where}.podVswitches"),
                sorted({v.zone_id for v in cfg.pod_vswitches}),
                f"no pod vSwitch is in the Lingjun zone {cfg.lingjun.zone_id} "
                "(gpu-fabric:lingjun.zoneId), so Lingjun pods get no address; add a pod vSwitch "
                "in that zone",
            )
        )

    vpc = ipaddress.IPv4Network(existing.vpc_cidr)
    vpc_key = _key(f"{where}.vpcCidr")
    for reserved in catalog().ack.vpc_reserved_ranges:
        if vpc.overlaps(ipaddress.IPv4Network(reserved.cidr)):
            problems.append(
                Problem(
                    vpc_key,
                    existing.vpc_cidr,
                    f"overlaps {reserved.cidr}, {reserved.what}, which no VPC may use (the "
                    "catalog's ack.vpc_reserved_ranges); pick a range outside it, e.g. "
                    "10.0.0.0/16",
                )
            )
    problems += _vswitch_capacity(cfg, where)
    ranges = [(f"{key}.cidr", v.cidr) for key, v in _vswitches(cfg)]
    for key, cidr in ranges:
        if not ipaddress.IPv4Network(cidr).subnet_of(vpc):
            problems.append(Problem(key, cidr, f"is not inside the VPC {vpc}; pick a range in it"))
    for (key_a, a), (key_b, b) in itertools.combinations(ranges, 2):
        if ipaddress.IPv4Network(a).overlaps(ipaddress.IPv4Network(b)):
            problems.append(Problem(key_b, b, f"overlaps {key_a} ({a}); pick another range"))
    service = cfg.ack.service_cidr
    if ipaddress.IPv4Network(service).overlaps(vpc):
        problems.append(
            Problem(
                _key("ack.serviceCidr"),
                service,
                f"overlaps the VPC {vpc} ({vpc_key}); Services and nodes would share addresses: "
                "pick a range outside it, e.g. 192.168.0.0/16",
            )
        )
    return problems


def _vswitch_capacity(cfg: AckLingjunConfig, where: str) -> list[Problem]:
    """The node vSwitches hold every system node, beside the addresses Alibaba keeps in each."""
    reserved = catalog().ack.vswitch_reserved_addresses.count
    vswitches = cfg.node_vswitches
    sizes = [ipaddress.IPv4Network(v.cidr).prefixlen for v in vswitches]
    if not vswitches or not all(VSWITCH_PREFIXES[0] <= s <= VSWITCH_PREFIXES[1] for s in sizes):
        return []  # no vSwitch, or one of a size Alibaba refuses (its own problem above)
    room = sum(max(ipaddress.IPv4Network(v.cidr).num_addresses - reserved, 0) for v in vswitches)
    nodes = cfg.ack.system_pool.node_count
    if room >= nodes:
        return []
    value: str | list[str] = [v.cidr for v in vswitches]
    key = _key(f"{where}.nodeVswitches")
    if len(vswitches) == 1:
        key, value = f"{key}[0].cidr", vswitches[0].cidr
    return [
        Problem(
            key,
            value,
            f"the node vSwitches hold {room} node addresses (Alibaba keeps {reserved} of each "
            "vSwitch: the first and the last three), and gpu-fabric:ack.systemPool.nodeCount "
            f"asks for {nodes} nodes; pick a larger range (a /{_prefix_for(nodes + reserved)} "
            "or larger) or fewer nodes",
        )
    ]


def _prefix_for(addresses: int) -> int:
    """The longest prefix whose range has `addresses` addresses."""
    return 32 - max(addresses - 1, 1).bit_length()


def _reachability(cfg: AckLingjunConfig) -> list[Problem]:
    """A stack that applies the fabric layer must reach the API endpoint from where it runs.

    The API server's internet SLB has no access control list that this stack can set (the
    provider's `ManagedKubernetes` exposes none), so a public endpoint is not offered.
    """
    problems = []
    if cfg.ack.public_endpoint:
        problems.append(
            Problem(
                _key("ack.publicEndpoint"),
                True,
                "the API server's internet SLB would have no access control list (this stack "
                "cannot set one), open to any address; keep it private and split the layers "
                '(README, "Split deployment")',
            )
        )
    existing = cfg.network.existing
    if cfg.layers is Layers.ALL and not (existing is not None and existing.deploy_path):
        fix = private_endpoint_fix("VPC", "(none on ACK: a public endpoint has no allow-list)")
        problems.append(Problem(_key("layers"), cfg.layers.value, fix))
    if cfg.layers is not Layers.ALL and existing is not None and existing.deploy_path:
        problems.append(deploy_path_without_effect(existing.deploy_path, cfg.layers))
    return problems
