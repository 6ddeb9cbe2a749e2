"""A flexible shape's OCPUs and memory, read at preview and checked against the shape's limits
before the node pool is planned.

OCI's limits are per shape (VM.Standard.E5.Flex takes more OCPUs than VM.Standard3.Flex, and
memory per OCPU within its own range) and change as OCI adds sizes, so they are not catalog
facts: they are read from ListShapes (`oci.core.get_shapes`, in the nodes' availability domain,
also under `pulumi preview`), whose `ocpuOptions` and `memoryOptions` are the bounds a launch is
checked against (OCI docs, "Flexible Shapes":
https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm#flexible). A
pool outside them would be accepted by Pulumi and fail OKE's node launch after the cluster is
built; here the preview fails naming the key and the bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_oci as oci

from ...layers import result_field


class ShapeConfigOutOfBounds(pulumi.RunError):
    """The shape cannot take the pool's OCPUs or memory: printed by the CLI as an error without
    a Python stack (Pulumi's `RunError`)."""


def shape_config_problems(shape: Any, ocpus: int, memory_gbs: int) -> list[str]:
    """What of `ocpus` and `memory_gbs` the ListShapes entry `shape` does not take."""
    problems = []
    ocpu_options = (result_field(shape, "ocpu_options") or [None])[0]
    memory_options = (result_field(shape, "memory_options") or [None])[0]
    if ocpu_options is not None:
        low, high = result_field(ocpu_options, "min"), result_field(ocpu_options, "max")
        if low is not None and high is not None and not low <= ocpus <= high:
            problems.append(
                f"oke.systemPool.ocpus {ocpus} is outside the shape's {low:g}-{high:g} OCPUs"
            )
    if memory_options is not None:
        low, high = (
            result_field(memory_options, "min_in_gbs"),
            result_field(memory_options, "max_in_gbs"),
        )
        if low is not None and high is not None and not low <= memory_gbs <= high:
            problems.append(
                f"oke.systemPool.memoryGbs {memory_gbs} is outside the shape's {low:g}-{high:g} GB"
            )
        per_low = result_field(memory_options, "min_per_ocpu_in_gbs")
        per_high = result_field(memory_options, "max_per_ocpu_in_gbs")
        per_ocpu = memory_gbs / ocpus
        if per_low is not None and per_high is not None and not per_low <= per_ocpu <= per_high:
            problems.append(
                f"{memory_gbs} GB over {ocpus} OCPUs is {per_ocpu:g} GB per OCPU, outside the "
                f"shape's {per_low:g}-{per_high:g}: set oke.systemPool.memoryGbs between "
                f"{per_low * ocpus:g} and {per_high * ocpus:g}"
            )
    return problems


def checked_shape_config(
    pool: Mapping[str, Any], compartment_id: pulumi.Input[str], parent: pulumi.Resource
) -> pulumi.Output[oci.containerengine.NodePoolNodeShapeConfigArgsDict]:
    """The pool's `node_shape_config`, once ListShapes says its shape takes it in the pool's
    availability domain; otherwise the preview fails with what does not fit."""
    shape, ocpus, memory_gbs = pool["shape"], pool["ocpus"], pool["memory_gbs"]
    listed = oci.core.get_shapes_output(
        compartment_id=compartment_id,
        availability_domain=pool["availability_domain"],
        opts=pulumi.InvokeOutputOptions(parent=parent),
    )

    def check(result: Any) -> oci.containerengine.NodePoolNodeShapeConfigArgsDict:
        shapes = result_field(result, "shapes") or []
        found = next((s for s in shapes if result_field(s, "name") == shape), None)
        if found is None:
            raise ShapeConfigOutOfBounds(
                f"oke.systemPool.shape {shape} is not offered to this compartment in "
                f"{pool['availability_domain']} (ListShapes): pick one `oci compute shape list "
                "--compartment-id <compartment> --availability-domain <ad>` lists"
            )
        problems = shape_config_problems(found, ocpus, memory_gbs)
        if problems:
            raise ShapeConfigOutOfBounds(
                f"system pool ({shape}): " + "; ".join(problems) + " (OCI ListShapes)"
            )
        return {"ocpus": ocpus, "memory_in_gbs": memory_gbs}

    return listed.apply(check)
