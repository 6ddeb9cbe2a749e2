"""The rules of the OKE cluster's networks, over the cloud layer's args (`OkeCloudArgs`): a created
VCN's subnets inside it and apart and large enough, the Service and flannel pod ranges outside it,
all clear of the RDMA rails' range, and an API endpoint reachable as asked (cloud_rules.py runs
them for a hosted `OkeCloud` and a stack file alike)."""

from __future__ import annotations

import ipaddress
import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any

from ...catalog import catalog
from ...layer_inputs import ArgsPath, ArgsProblem

# OCI keeps 3 addresses of every subnet (the first two and the last: VCN docs, "Subnets").
RESERVED_PER_SUBNET = 3


# OKE's flannel gives each node a /25 of the pod range (OKE docs, "Flannel CNI plugin"; UNVERIFIED
# for every version: the check only refuses ranges that surely cannot hold the nodes).
FLANNEL_NODE_PREFIX = 25


VCN_SUBNETS = ("api_subnet_cidr", "load_balancer_subnet_cidr", "workers_subnet_cidr")


def _net(cidr: str) -> ipaddress.IPv4Network:
    return ipaddress.IPv4Network(cidr)


def range_problems(args: Mapping[str, Any], name: Callable[[ArgsPath], str]) -> list[ArgsProblem]:
    """The VCN clear of the RDMA rails' range, its subnets inside it and apart, the Service and
    flannel pod ranges outside it and apart, and an API endpoint reachable as asked."""
    problems: list[ArgsProblem] = []
    vcn_path: ArgsPath = ("vcn", "vcn_cidr") if "vcn" in args else ("existing_vcn", "vcn_cidr")
    vcn_cidr = args["vcn"]["vcn_cidr"] if "vcn" in args else args["existing_vcn"]["vcn_cidr"]
    vcn, oca = _net(vcn_cidr), _net(catalog().oke.dranet.oca_rdma_cidr)
    if vcn.overlaps(oca):
        problems.append(
            ArgsProblem(
                vcn_path,
                vcn_cidr,
                f"overlaps {oca}, the range Oracle Cloud Agent gives the RDMA rails; pick a VCN "
                "range outside it",
            )
        )
    if args["public_endpoint"] and "vcn" in args:
        problems.append(
            ArgsProblem(
                ("public_endpoint",),
                True,
                "the VCN this stack creates has private subnets only, so the API endpoint cannot "
                "get a public IP; reach it from inside the VCN (apiAllowedCidrs), or use "
                f"{name(('existing_vcn',))} with a public API subnet",
            )
        )
    if args["public_endpoint"] and "existing_vcn" in args and not args["api_allowed_cidrs"]:
        problems.append(
            ArgsProblem(
                ("api_allowed_cidrs",),
                [],
                "a public API endpoint needs an allow-list: list the ranges that deploy and "
                "operate the cluster (no /0), or keep the endpoint private",
            )
        )
    if "vcn" in args:
        subnets = [
            (("vcn", field), args["vcn"][field])
            for field in (*VCN_SUBNETS, "pods_subnet_cidr")
            if field in args["vcn"]
        ]
        problems += [
            ArgsProblem(path, cidr, f"is not inside the VCN {vcn}; pick a range inside it")
            for path, cidr in subnets
            if not _net(cidr).subnet_of(vcn)
        ]
        problems += [
            ArgsProblem(path_b, b, f"overlaps {name(path_a)} ({a}); pick another range")
            for (path_a, a), (path_b, b) in itertools.combinations(subnets, 2)
            if _net(a).overlaps(_net(b))
        ]
    outside: list[tuple[ArgsPath, str]] = [(("services_cidr",), args["services_cidr"])]
    if "pods_cidr" in args:
        outside.append((("pods_cidr",), args["pods_cidr"]))
    for path, cidr in outside:
        if _net(cidr).overlaps(vcn):
            problems.append(
                ArgsProblem(path, cidr, f"overlaps the VCN {vcn}; pick a range outside it")
            )
        if _net(cidr).overlaps(oca):
            # The rails' own addresses: a Service or flannel pod address there shadows a rail
            # peer on every node, as the VCN would (catalog oke.dranet.oca_rdma_cidr).
            problems.append(
                ArgsProblem(
                    path,
                    cidr,
                    f"overlaps {oca}, the range Oracle Cloud Agent gives the RDMA rails (refused "
                    "for the VCN too); pick a range outside it, e.g. 10.96.0.0/16 for Services "
                    "or 10.244.0.0/16 for flannel pods",
                )
            )
    if len(outside) == 2 and _net(outside[0][1]).overlaps(_net(outside[1][1])):
        (first, a), (second, b) = outside
        problems.append(ArgsProblem(second, b, f"overlaps {name(first)} ({a}); pick another range"))
    return problems


def capacity_problems(args: Mapping[str, Any]) -> list[ArgsProblem]:
    """A created VCN's workers subnet holds every node, its pod subnet (VCN-native pods) every
    node's pods; flannel's pod range a /25 per node."""
    nodes = args["gpu_nodes"]["count"] + args["system_pool"]["node_count"]
    max_pods = args["max_pods_per_node"]
    wants: list[tuple[ArgsPath, str, int, str]] = []
    if "vcn" in args:
        vcn = args["vcn"]
        wants.append((("vcn", "workers_subnet_cidr"), vcn["workers_subnet_cidr"], nodes, "nodes"))
        if "pods_subnet_cidr" in vcn:
            what = f"pod addresses ({nodes} nodes x {max_pods} pods)"
            wants.append(
                (("vcn", "pods_subnet_cidr"), vcn["pods_subnet_cidr"], nodes * max_pods, what)
            )
    problems = [
        ArgsProblem(
            path,
            cidr,
            f"holds {room} addresses, and the stack needs {count} {what}; pick a larger range",
        )
        for path, cidr, count, what in wants
        if (room := _net(cidr).num_addresses - RESERVED_PER_SUBNET) < count
    ]
    pods = args.get("pods_cidr")
    per_node = 2 ** (32 - FLANNEL_NODE_PREFIX)
    if pods is not None and _net(pods).num_addresses < nodes * per_node:
        problems.append(
            ArgsProblem(
                ("pods_cidr",),
                pods,
                f"flannel gives each node a /{FLANNEL_NODE_PREFIX}; {nodes} nodes need a /"
                f"{32 - math.ceil(math.log2(nodes * per_node))} or larger",
            )
        )
    return problems
