"""The GPU networks a machine's NICs take, over the cloud layer's args (`GkeGpuNetwork`): a hosted
`GkeCloud` checks them (inputs.py); the stack config makes them from `network.nics` in the same
layout and checks its own keys (checks.py), with the same MTU rule (`mtu_problem`)."""

from __future__ import annotations

from collections.abc import Sequence

from ...catalog import Machine, NicGroup
from ...layer_inputs import ArgsProblem
from .args import GkeGpuNetwork


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
