"""The rules of a GKE cluster's networks, over the cloud layer's args (`GkeGpuNetwork`, the
primary network): the GPU networks a machine's NICs take, their MTUs and firewall sources, and the
ranges (none overlaps another, each holds the nodes the stack can create). A hosted `GkeCloud` and
a stack file run the same rules (cloud_rules.py); each names a path in its own words (`name`)."""

from __future__ import annotations

import ipaddress
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...catalog import Machine, NicGroup
from ...layer_inputs import ArgsPath, ArgsProblem
from ..cluster.config import GKE_DEFAULT_MAX_PODS_PER_NODE
from ..pool.args import most_nodes
from .args import GkeGpuNetwork

# Compute Engine keeps 4 addresses of every subnet's primary range (network, gateway, second-to-
# last, broadcast: VPC docs "Reserved IP addresses in IPv4 subnets"); /29 is the smallest range.
RESERVED_PER_SUBNET = 4
SMALLEST_SUBNET_PREFIX = 29
# The system pool is regional: its count is per zone, and a region has at most 4 zones today.
MAX_ZONES_PER_REGION = 4
# The smallest Services (ClusterIP) secondary range GKE takes: a /27, 32 Services; GKE's default
# is a /20 (GKE docs, "VPC-native clusters", IP address ranges and cluster sizing:
# https://cloud.google.com/kubernetes-engine/docs/concepts/alias-ips). The cluster's own Services
# (kubernetes, kube-dns, metrics-server, the GPU fabric's) take several before any workload's.
SMALLEST_SERVICES_PREFIX = 27


def nic_layout(machine: Machine) -> list[tuple[NicGroup, int]]:
    """Each GPU network the machine's NICs take, in NIC order: its NIC group and how many subnets
    (one per NIC) it holds: a VPC per NIC where the group has one (catalog `vpc_per_nic`: TCPX,
    TCPXO, gVNIC), else one VPC for the group (gIB's RDMA NICs)."""
    layout: list[tuple[NicGroup, int]] = []
    for group in machine.nic_groups:
        layout += [(group, 1)] * group.count if group.vpc_per_nic else [(group, group.count)]
    return layout


def mtu_problem(group: NicGroup, machine_type: str, mtu: int) -> str | None:
    """An MTU the group's fabric does not allow (GPUDirect-TCPX/TCPXO's docs allow only some)."""
    if group.allowed_mtus and mtu not in group.allowed_mtus:
        return (
            f"the {group.name} NICs of {machine_type} work with MTU "
            f"{' or '.join(map(str, group.allowed_mtus))} only; use that"
        )
    return None


def gpu_network_problems(
    machine: Machine, machine_type: str, networks: Sequence[GkeGpuNetwork]
) -> list[ArgsProblem]:
    """The networks' layout (how many, with how many subnets each, in NIC order) and MTUs."""
    layout = nic_layout(machine)
    want = [subnets for _, subnets in layout]
    have = [len(network["subnets"]) for network in networks]
    if have != want:
        groups = ", ".join(
            f"{g.count} {g.name} NIC(s) in {'a VPC each' if g.vpc_per_nic else 'one VPC'}"
            for g in machine.nic_groups
        )
        return [
            ArgsProblem(
                ("gpu_networks",),
                have,
                f"{machine_type} has {groups}: give {len(want)} GPU networks with {want} "
                "subnets, in NIC order (the value: the subnets of each network given)",
            )
        ]
    problems = []
    for i, ((group, _), network) in enumerate(zip(layout, networks, strict=True)):
        wrong = mtu_problem(group, machine_type, network["mtu"])
        if wrong:
            problems.append(ArgsProblem(("gpu_networks", i, "mtu"), network["mtu"], wrong))
    return problems


def nic_of(machine: Machine, network: int, subnet: int = 0) -> tuple[NicGroup, int]:
    """The NIC group of a GPU network's subnet (`network`, `subnet`: indexes in the args), and the
    NIC's index in its group: what a stack file's `network.nics.<group>.subnets[i]` names."""
    layout = nic_layout(machine)
    group, _ = layout[network]
    before = sum(count for g, count in layout[:network] if g.name == group.name)
    return group, before + subnet


def firewall_problems(machine: Machine, networks: Sequence[GkeGpuNetwork]) -> list[ArgsProblem]:
    """Firewall sources where the group's VPC may have no rule (an RDMA VPC), or none at all (an
    empty list would block every NIC of the VPC)."""
    problems = []
    for i, ((group, _), network) in enumerate(zip(nic_layout(machine), networks, strict=True)):
        sources = network.get("firewall_source_ranges")
        path = ("gpu_networks", i, "firewall_source_ranges")
        if sources is not None and group.firewall_forbidden:
            problems.append(
                ArgsProblem(
                    path,
                    sources,
                    f"no firewall rule can be created here: {group.firewall_forbidden}; remove it",
                )
            )
        elif sources == []:
            problems.append(
                ArgsProblem(
                    path,
                    [],
                    "an empty list would block all traffic on these NICs; remove the key to "
                    "allow each VPC's own subnet, or list the ranges",
                )
            )
    return problems


def _ranges(args: Mapping[str, Any]) -> list[tuple[ArgsPath, str]]:
    """Every range the stack creates: each GPU subnet's, then the primary network's."""
    ranges: list[tuple[ArgsPath, str]] = [
        (("gpu_networks", n, "subnets", k, "cidr"), subnet["cidr"])
        for n, network in enumerate(args["gpu_networks"])
        for k, subnet in enumerate(network["subnets"])
    ]
    primary = args.get("primary_network")
    if primary is not None:
        ranges += [
            (("primary_network", field), primary[field])
            for field in ("subnet_cidr", "pods_cidr", "services_cidr")
        ]
    return ranges


def overlap_problems(args: Mapping[str, Any], name: Callable[[ArgsPath], str]) -> list[ArgsProblem]:
    """No two ranges of the stack overlap (each later one is reported, naming the earlier)."""
    return [
        ArgsProblem(path_b, b, f"overlaps {name(path_a)} ({a}); pick a range that does not overlap")
        for (path_a, a), (path_b, b) in itertools.combinations(_ranges(args), 2)
        if ipaddress.ip_network(a).overlaps(ipaddress.ip_network(b))
    ]


def capacity_problems(args: Mapping[str, Any]) -> list[ArgsProblem]:
    """Every subnet holds an address for each node the stack can create on it: each GPU subnet
    one per GPU node (the pools share the GPU VPCs), the primary subnet one per GPU and system
    node."""
    gpu_nodes = sum(most_nodes(pool) for pool in args["gpu_pools"])
    subnets = [(path, cidr, gpu_nodes) for path, cidr in _ranges(args) if path[0] == "gpu_networks"]
    if "primary_network" in args:
        system_nodes = args["system_node_count"] * MAX_ZONES_PER_REGION
        primary = args["primary_network"]["subnet_cidr"]
        subnets.append((("primary_network", "subnet_cidr"), primary, gpu_nodes + system_nodes))
    problems = []
    for path, cidr, nodes in subnets:
        network = ipaddress.ip_network(cidr)
        if network.prefixlen > SMALLEST_SUBNET_PREFIX:
            problems.append(
                ArgsProblem(
                    path, cidr, f"Compute Engine subnets are /{SMALLEST_SUBNET_PREFIX} or larger"
                )
            )
        elif network.num_addresses - RESERVED_PER_SUBNET < nodes:
            problems.append(
                ArgsProblem(
                    path,
                    cidr,
                    f"holds {network.num_addresses - RESERVED_PER_SUBNET} nodes, and the stack can "
                    f"create {nodes} with an address here; pick a larger range",
                )
            )
    return problems


def pod_range_problems(
    args: Mapping[str, Any], name: Callable[[ArgsPath], str]
) -> list[ArgsProblem]:
    """The pod range must hold a per-node range for every node the stack can create.

    GKE gives each node a pod range of twice its max pods, rounded up to a power of two (110 pods:
    a /24), from the cluster's pod range ("Configure maximum Pods per node"); a node that finds no
    free range does not come up. An existing network's ranges are not known here: not checked.
    """
    if "primary_network" not in args:
        return []
    max_pods = args.get("max_pods_per_node") or GKE_DEFAULT_MAX_PODS_PER_NODE
    per_node = 2 ** math.ceil(math.log2(2 * max_pods))
    pods_cidr = args["primary_network"]["pods_cidr"]
    capacity = ipaddress.ip_network(pods_cidr).num_addresses // per_node
    system = args["system_node_count"] * MAX_ZONES_PER_REGION
    gpu_nodes = sum(most_nodes(pool) for pool in args["gpu_pools"])
    nodes = gpu_nodes + system
    if nodes <= capacity:
        return []
    needed = 32 - math.ceil(math.log2(nodes * per_node))
    return [
        ArgsProblem(
            ("primary_network", "pods_cidr"),
            pods_cidr,
            f"holds {capacity} nodes at {max_pods} pods per node (a "
            f"/{32 - int(math.log2(per_node))} each), but the stack can create {nodes} "
            f"({gpu_nodes} GPU, up to {system} system in {MAX_ZONES_PER_REGION} "
            f"zones); use a /{needed} or wider, or lower {name(('max_pods_per_node',))}",
        )
    ]


def services_range_problems(args: Mapping[str, Any]) -> list[ArgsProblem]:
    """The Services range must be one GKE accepts (a /27 or wider). An existing network's range
    is not known here: not checked."""
    if "primary_network" not in args:
        return []
    cidr = args["primary_network"]["services_cidr"]
    services = ipaddress.ip_network(cidr)
    if services.prefixlen <= SMALLEST_SERVICES_PREFIX:
        return []
    return [
        ArgsProblem(
            ("primary_network", "services_cidr"),
            cidr,
            f"holds {services.num_addresses} Service addresses; GKE's Services range is a "
            f"/{SMALLEST_SERVICES_PREFIX} (32 Services) or wider, and the cluster's own Services "
            "take several; use a /20 (4,096 Services, GKE's default) or at least a "
            f"/{SMALLEST_SERVICES_PREFIX}",
        )
    ]
