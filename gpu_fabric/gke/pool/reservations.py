"""A pool's reservation, read at preview and checked against the pool before the pool is planned.

A node pool that names a reservation it cannot use is accepted by GKE and then never gets its
nodes (or fails after its create timeout): a zone or machine type that differs, a reservation
that any VM may consume (GKE consumes a specific one only if it requires specific consumption),
or too few VMs in it. cluster-toolkit's gke-node-pool checks the same in a precondition
(modules/compute/gke-node-pool/reservation_definitions.tf). Here the reservation is read with
`gcp.compute.get_reservation` (under `pulumi preview` too) in the pool's zone, so one of another
zone (or none) fails the read; the pool's reservation affinity takes the name only once the
checks pass, so a mismatch fails the preview naming the fix.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_gcp as gcp

from ...catalog import Machine
from ...layers import result_field


class ReservationMismatch(pulumi.RunError):
    """The reservation cannot hold the pool's nodes: printed by the CLI as an error without a
    Python stack (Pulumi's `RunError`)."""


def reservation_problems(
    reservation: Any, pool: Mapping[str, Any], machine: Machine, name: str
) -> tuple[list[str], list[str]]:
    """(problems, warnings) of `pool` consuming `reservation` (a GetReservationResult) named
    `name`."""
    problems, warnings = [], []
    if result_field(reservation, "specific_reservation_required") is False:
        problems.append(
            "it does not require specific consumption, so GKE cannot consume it by name: create "
            "it with --require-specific-reservation, or remove gpuPool.reservation to consume "
            "any matching reservation"
        )
    for specific in result_field(reservation, "specific_reservations") or []:
        properties = (result_field(specific, "instance_properties") or [None])[0]
        reserved = result_field(properties, "machine_type") if properties else None
        if reserved and reserved != pool["machine_type"]:
            problems.append(
                f"it reserves {reserved} and the pool is {pool['machine_type']}: name a "
                f"reservation of {pool['machine_type']}"
            )
        accelerators = (result_field(properties, "guest_accelerators") or []) if properties else []
        gpus = sum(int(result_field(a, "accelerator_count") or 0) for a in accelerators)
        if accelerators and gpus != machine.accelerator.count:
            problems.append(
                f"it reserves {gpus} GPUs per VM and {pool['machine_type']} has "
                f"{machine.accelerator.count}: name a reservation of that machine"
            )
        count = int(result_field(specific, "count") or 0)
        in_use = int(result_field(specific, "in_use_count") or 0)
        if count < pool["node_count"]:
            problems.append(
                f"it holds {count} VMs and the pool asks for {pool['node_count']}: lower "
                "gpuPool.nodeCount, or grow the reservation"
            )
        elif count - in_use < pool["node_count"]:
            # In use by this pool's own nodes on an update; by another consumer on a create.
            warnings.append(
                f"reservation {name}: {count - in_use} of its {count} VMs are free and the pool "
                f"asks for {pool['node_count']}: enough only if this pool's own nodes use the "
                "rest (an update); a new pool waits for capacity until its create timeout"
            )
    return problems, warnings


def checked_reservation(
    pool: Mapping[str, Any], machine: Machine, value: pulumi.Input[str], parent: pulumi.Resource
) -> pulumi.Output[str]:
    """`value` (the pool's reservation affinity value), once the reservation it names is read
    and fits the pool; otherwise the preview fails with what does not fit and the fix. The
    reservation may be an Output (another stack's, or a resource's name): it is read once known."""
    name = pulumi.Output.from_input(pool["reservation"]).apply(lambda r: r.split("/", 1)[0])
    reservation = gcp.compute.get_reservation_output(
        name=name,
        zone=pool["zone"],
        project=pool.get("reservation_project"),
        opts=pulumi.InvokeOutputOptions(parent=parent),
    )

    def check(read: list[Any]) -> str:
        result, named, affinity = read
        problems, warnings = reservation_problems(result, pool, machine, named)
        for warning in warnings:
            pulumi.log.warn(warning, parent)
        if problems:
            raise ReservationMismatch(
                f"GPU pool {pool['name']}: reservation {named} does not fit it: "
                + "; ".join(problems)
            )
        return affinity

    return pulumi.Output.all(reservation, name, value).apply(check)
