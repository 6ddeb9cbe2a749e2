"""Wait until the Lingjun nodes are in the cluster, Ready and usable (their GPUs and `rdma/hca`
advertised, no taint but the GPU and Lingjun ones), or fail the update with the step that adds
them.

Nothing in this stack can put a Lingjun node group's nodes into the Lingjun node pool: the pool is
created bound to the group (`eflo_node_group`), but pulumi-alicloud 4.0.0 has no auto-attach (the
newer CS API's `eflo_node_group.auto_attach_enabled` is not in it), and attaching Lingjun node
ids through the pool's `instances` (AttachInstancesToNodePool, documented for ECS `i-` ids) is
unverified (pulumi-alicloud 4.0.0 `cs.NodePool`). Alibaba's way is the console's "Add Existing
Node" on the pool ("Create and manage a Lingjun node pool"). So the step is the user's, between the
cloud stack and the fabric stack, and this wait (in the fabric layer, where the API is reachable)
makes it explicit: `pulumi up` of the fabric stack fails, naming the step, until the nodes are
there.

The nodes are found by ACK's Lingjun label (catalog `ack.lingjun_nodes.worker_label`): a Lingjun
node of another pool of the same cluster counts too (the pool label of Lingjun nodes is not
documented).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_command as command

from ...catalog import catalog
from ...node_wait import Advertised, NodeNeeds, usable_lines, wait_command, wait_script
from ...nvidia import GPU_RESOURCE

WAIT_MINUTES = 30
"""From the fabric stack's `pulumi up`: nodes added just before it have time to turn Ready and
get the device plugin."""

LINGJUN, RDMA_PLUGIN = catalog().ack.lingjun_nodes, catalog().ack.rdma_device_plugin
NEEDS = NodeNeeds(
    advertised=[
        # What the RDMA add-on advertises (the guide's Job asks for `rdma/hca: 1`).
        Advertised(RDMA_PLUGIN.resource, 1, f"the {RDMA_PLUGIN.name} add-on"),
        Advertised(GPU_RESOURCE, LINGJUN.gpus, "ACK's GPU device plugin"),
    ],
    # ACK's own Lingjun taint stays: the RDMA pods tolerate it.
    allowed_taints=(GPU_RESOURCE, LINGJUN.taint["key"]),
)

WAIT_SCRIPT = wait_script(
    """  echo "Lingjun nodes are not ready for RDMA pods: $1." >&2
  echo "ACK does not add a Lingjun node group's nodes to a node pool by itself, and this" \\
    "stack cannot (pulumi-alicloud 4.0.0 has no auto-attach)." >&2
  echo "Add them: ACK console > cluster $CLUSTER_ID > Nodes > Node Pools > pool ${POOL_ID#*:} >" \\
    "Add Existing Node, selecting the nodes of Lingjun node group $GROUP_ID; then run" \\
    "pulumi up again. Nodes: kubectl get nodes -l $SELECTOR" >&2
""",
    then=usable_lines(NEEDS),
)


def selector() -> str:
    return ",".join(f"{k}={v}" for k, v in LINGJUN.worker_label.items())


@dataclass(frozen=True)
class LingjunNodeWaitArgs:
    kubeconfig: pulumi.Input[str]
    """Kubeconfig of the cluster the wait reads nodes from."""
    cluster_id: pulumi.Input[str]
    """Re-runs the wait when the cluster is replaced."""
    node_pool_id: pulumi.Input[str]
    """The Lingjun node pool whose nodes are waited for."""
    group_id: str
    """The Lingjun node group, named in the failure message."""
    count: int
    """Nodes to wait for, Ready with `rdma/hca`."""
    timeout_seconds: int = WAIT_MINUTES * 60
    """How long to wait before failing."""
    guarded: Sequence[pulumi.Input[str]] = ()
    """Run again when one changes: what advertises the devices (the RDMA add-on's version)."""


class LingjunNodeWait(pulumi.ComponentResource):
    """A `command.local.Command` that returns once `count` Lingjun nodes are Ready with
    `rdma/hca`, and fails naming "Add Existing Node" otherwise."""

    command: command.local.Command

    def __init__(
        self, name: str, args: LingjunNodeWaitArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:ack:LingjunNodeWait", name, None, opts)
        environment: dict[str, pulumi.Input[str]] = {
            "SELECTOR": selector(),
            "COUNT": str(args.count),
            "TIMEOUT_SECONDS": str(args.timeout_seconds),
            "CLUSTER_ID": args.cluster_id,
            "POOL_ID": args.node_pool_id,
            "GROUP_ID": args.group_id,
        }
        # Again when the cluster, the pool, the expected count or what it guards changes.
        triggers = [args.cluster_id, args.node_pool_id, args.count, *args.guarded]
        self.command = wait_command(
            f"{name}-wait", WAIT_SCRIPT, args.kubeconfig, environment, triggers, self
        )
        self.register_outputs({})
