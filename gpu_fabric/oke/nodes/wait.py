"""Wait until the self-managed GPU nodes have registered and are Ready, or fail the update.

A self-managed node joins from its own cloud-init: OCI reports the instance RUNNING whether or not
the join worked, so without this wait a node that never joins leaves `pulumi up` green. The wait
runs where `pulumi up` runs (kubectl and the kubeconfig's OCI CLI auth plugin there, as the CRD
gates), selects the GPU nodes by the labels they join with, and on timeout names the instances and
where their join log is.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_command as command

from ...catalog import catalog
from ...node_wait import (
    DeviceTest,
    NodeNeeds,
    Published,
    UsableNodes,
    UsableNodesArgs,
    usable_lines,
    wait_command,
    wait_script,
)
from ...nvidia import GPU_DRA_DRIVER, GPU_PRESENT_LABEL, GPU_RESOURCE
from ..claims.component import INSTANCE_TYPE_LABEL, RAIL_DRIVER
from .component import NODE_LABELS

# The join script's output is in cloud-init's log (it runs from runcmd).
CLOUD_INIT_LOG = "/var/log/cloud-init-output.log"
JOIN_TIMEOUT_SECONDS = 40 * 60
"""From the instances' creation: the image's boot, the node package's install if the image lacks
it, and `oke bootstrap`'s 20 attempts 15 s apart."""

WAIT_SCRIPT = wait_script(
    f"""  echo "GPU nodes did not join the cluster: $1." >&2
  echo "Instances: $GPU_NODES (selector $SELECTOR)." >&2
  echo "Read a node's join log: sudo tail -n 200 {CLOUD_INIT_LOG} on the instance (SSH through" \\
    "a bastion, or its console connection in the OCI console); a failed join ends with the" \\
    "join script's error there." >&2
"""
)


def selector(shape: str) -> str:
    """The GPU nodes: their shape, and the label they join with (a node of that shape that joined
    without our labels is not one of them)."""
    present = GPU_PRESENT_LABEL
    return f"{INSTANCE_TYPE_LABEL}={shape},{present}={NODE_LABELS[present]}"


@dataclass(frozen=True)
class GpuNodeWaitArgs:
    kubeconfig: pulumi.Input[str]
    """Kubeconfig of the cluster the wait reads nodes from."""
    cluster_id: pulumi.Input[str]
    """Re-runs the wait when the cluster is replaced."""
    gpu_nodes: pulumi.Input[list[str]]
    """The instances' display names: the wait names them."""
    gpu_node_ids: pulumi.Input[list[str]]
    """The instances' OCIDs: the wait depends on their creation, and runs again when one is
    replaced (a display name survives a replacement; an OCID does not)."""
    count: int
    """GPU nodes to wait for."""
    shape: str
    """Their shape: the node selector's instance type."""
    timeout_seconds: int = JOIN_TIMEOUT_SECONDS
    """How long to wait before failing."""


class GpuNodeWait(pulumi.ComponentResource):
    """A `command.local.Command` that returns once `count` GPU nodes are registered and Ready."""

    command: command.local.Command

    def __init__(
        self, name: str, args: GpuNodeWaitArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:oke:GpuNodeWait", name, None, opts)
        nodes = pulumi.Output.from_input(args.gpu_nodes).apply(lambda names: " ".join(names))
        environment: dict[str, pulumi.Input[str]] = {
            "GPU_NODES": nodes,
            "SELECTOR": selector(args.shape),
            "COUNT": str(args.count),
            "TIMEOUT_SECONDS": str(args.timeout_seconds),
        }
        # Again when the cluster or an instance is replaced (oci_core_instance's id is the OCID).
        triggers = [args.cluster_id, args.gpu_node_ids]
        self.command = wait_command(
            f"{name}-wait", WAIT_SCRIPT, args.kubeconfig, environment, triggers, self
        )
        self.register_outputs({})


USABLE_FAILURE = """  echo "GPU nodes joined, but a job cannot use them yet: $1." >&2
  echo "Read the drivers' pods on a node: kubectl get pods -A -o wide" \\
    "--field-selector spec.nodeName=NODE; and its devices: kubectl get resourceslices" \\
    "--field-selector spec.nodeName=NODE -o yaml." >&2
"""


RAILS_UP = DeviceTest(
    attributes=[
        ("dra.net/rdma", "bool"),
        ("dra.net/ifName", "string"),
        ("dra.net/state", "string"),
    ],
    # A rail is an RDMA device whose interface is `rdmaN` (the claims' selector, RAIL_SELECTOR)
    # and up: DRANET publishes each interface's operational state (`dra.net/state`, netlink's
    # "up"/"down": kubernetes-sigs/dranet pkg/inventory/db.go addLinkAttributes). A rail already
    # moved into a pod's network namespace keeps its PCI device in the slice without its
    # interface's attributes (discoverNetworkInterfaces lists the host's links only): it counts,
    # so the wait passes again while jobs run.
    condition='$2 == "true" && (($3 ~ /^rdma/ && $4 == "up") || $3 == "")',
    what="RDMA rails up",
)


def usable_needs(shape: str) -> NodeNeeds:
    """Each GPU node's devices: its shape's rails (up) and GPUs, published by the two DRA
    drivers."""
    oci_shape = catalog().oci_shapes[shape]
    return NodeNeeds(
        published=[
            Published(RAIL_DRIVER, oci_shape.rail_count, "DRANET's kubelet plugin", RAILS_UP),
            Published(GPU_DRA_DRIVER, oci_shape.gpu_count, "NVIDIA's DRA GPU kubelet plugin"),
        ],
        # Every join path registers it (join.sh; oke-init.service from the instance metadata's
        # kubelet-extra-args): a node joined without it is refused here, not found later.
        required_taints=[GPU_RESOURCE],
    )


def usable_script(shape: str) -> str:
    """The usable wait's script (what `UsableNodes` runs)."""
    return wait_script(USABLE_FAILURE, usable_lines(usable_needs(shape)))


def usable_gpu_nodes(
    name: str,
    kubeconfig: pulumi.Input[str],
    triggers: list[pulumi.Input[object]],
    shape: str,
    count: int,
    after: list[pulumi.Resource],
    opts: pulumi.ResourceOptions,
    timeout_seconds: int = JOIN_TIMEOUT_SECONDS,
) -> UsableNodes:
    """The wait, after both DRA drivers' releases, until each GPU node's ResourceSlices publish
    its shape's rails (DRANET, `dra.net`) and GPUs (NVIDIA's DRA driver, `gpu.nvidia.com`): the
    devices every claim of the stack allocates from. A driver that publishes nothing on a node
    fails the update here, not a job later."""
    return UsableNodes(
        name,
        UsableNodesArgs(
            kubeconfig=kubeconfig,
            selector=selector(shape),
            count=count,
            needs=usable_needs(shape),
            failure=USABLE_FAILURE,
            timeout_seconds=timeout_seconds,
            triggers=triggers,
            after=after,
        ),
        opts,
    )
