"""ACK's in-cluster fabric layer: the wait for the Lingjun nodes, and the RDMA benchmark
Job of Alibaba's Lingjun RDMA guide, on demand.

The RDMA device plugin itself is an ACK add-on, a cloud resource (the cloud layer's). The Lingjun
nodes are added to their pool by a person ("Add Existing Node", `node_wait.py`): the layer waits
until they are Ready with `rdma/hca`, and fails naming that step. The Job waits for the provider
only: its pods stay Pending until a Lingjun node advertises `rdma/hca`, and `pulumi up` does not
wait for the Job (skipAwait).
"""

from typing import NotRequired, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from ..durations import seconds_of
from ..health.args import HealthSettings
from ..health.component import NodeHealth, NodeHealthArgs
from ..layers import child_options, declared_outputs, layer_token
from ..storage.args import TrainingVolume
from ..storage.component import TrainingVolumes, TrainingVolumesArgs
from ..workloads.queues import TrainingQueue, TrainingQueueArgs
from ..workloads.settings import TrainingQueueSettings
from .inputs import FABRIC_INPUTS
from .lingjun.wait import LingjunNodeWait, LingjunNodeWaitArgs
from .rdma.pods import BENCHMARK_GPUS, Benchmark, BenchmarkArgs


class AckLingjunNodes(TypedDict):
    """The Lingjun nodes the fabric layer waits for (added to the pool with "Add Existing Node")."""

    count: int
    """How many nodes of the group are added to the pool."""
    group_id: str
    """The Lingjun node group (named in the failure)."""
    node_pool_id: pulumi.Input[str]
    """The Lingjun node pool (the cloud layer's `lingjunNodePoolId`)."""
    cluster_id: pulumi.Input[str]
    """The cluster (the cloud layer's `clusterId`)."""
    kubeconfig: pulumi.Input[str]
    """A kubeconfig of the cluster, for kubectl where `pulumi up` runs (secret)."""
    rdma_plugin: NotRequired[str]
    """What the RDMA add-on runs as (its version and mode): the wait runs again when it
    changes, so a new version that stops advertising `rdma/hca` fails the update."""
    timeout: NotRequired[str]
    """How long to wait for them to be usable (a duration: 30m, 1h)."""


class AckFabricArgs(TypedDict):
    """What ACK's fabric layer puts in the cluster."""

    kubernetes_provider: k8s.Provider
    """The provider of the cluster to fill."""
    non_host_network: bool
    """Whether the RDMA add-on serves pods off the host network (the cloud layer's setting)."""
    benchmark_image: NotRequired[str]
    """Run the Lingjun RDMA guide's hps-benchmark Job with this image (unset: no Job)."""
    lingjun_nodes: NotRequired[AckLingjunNodes]
    """Wait for this many Lingjun nodes, Ready with `rdma/hca` (unset: no wait)."""
    training_queue: NotRequired[TrainingQueueSettings]
    """Kueue, JobSet and the queue users' jobs go through (unset: none; needs `kubeconfig` and
    `cluster_id`)."""
    kubeconfig: NotRequired[pulumi.Input[str]]
    """The cluster's kubeconfig, for the training queue's CRD gate (run with kubectl where
    `pulumi up` runs)."""
    cluster_id: NotRequired[pulumi.Input[str]]
    """The cluster's id: the training queue's CRD gate runs again when it changes."""
    health: NotRequired[HealthSettings]
    """The GPU nodes' checks, the taint on a failed one, metrics and alert rules (unset: none)."""
    training_volumes: NotRequired[list[TrainingVolume]]
    """Volumes of the training runtime (CPFS for Lingjun): a claim of each in every training
    namespace of `training_queue`, which mounts them (unset: none)."""


class AckFabric(pulumi.ComponentResource):
    """ACK's fabric layer: the RDMA benchmark Job, when an image is given."""

    benchmark_job: pulumi.Output[str]
    """The benchmark Job's name ('' when none)."""

    def __init__(
        self, name: str, args: AckFabricArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args = FABRIC_INPUTS.checked(AckFabricArgs, name, args)
        super().__init__(layer_token(AckFabric), name, None, opts)
        job: pulumi.Input[str] = ""
        nodes = args.get("lingjun_nodes")
        if nodes is not None and nodes["count"]:
            LingjunNodeWait(
                f"{name}-lingjun-nodes",
                LingjunNodeWaitArgs(
                    kubeconfig=nodes["kubeconfig"],
                    cluster_id=nodes["cluster_id"],
                    node_pool_id=nodes["node_pool_id"],
                    group_id=nodes["group_id"],
                    count=nodes["count"],
                    guarded=[nodes.get("rdma_plugin", "")],
                    **(
                        {"timeout_seconds": seconds_of(nodes["timeout"])}
                        if "timeout" in nodes
                        else {}
                    ),
                ),
                child_options(self, opts, [args["kubernetes_provider"]]),
            )
        if "benchmark_image" in args:
            benchmark = Benchmark(
                f"{name}-benchmark",
                BenchmarkArgs(
                    image=args["benchmark_image"],
                    gpus=BENCHMARK_GPUS,
                    non_host_network=args["non_host_network"],
                ),
                child_options(self, opts, [args["kubernetes_provider"]]),
            )
            job = benchmark.job.metadata.name
        if "training_queue" in args:
            queue = TrainingQueue(
                f"{name}-training-queue",
                TrainingQueueArgs(args["training_queue"], args["kubeconfig"], args["cluster_id"]),
                child_options(self, opts, [args["kubernetes_provider"]]),
            )
            if args.get("training_volumes"):
                TrainingVolumes(
                    f"{name}-training-volumes",
                    TrainingVolumesArgs.of(args["training_volumes"], queue),
                    child_options(self, opts, [args["kubernetes_provider"]]),
                )
        self.benchmark_job = pulumi.Output.from_input(job)
        if "health" in args:
            NodeHealth(
                f"{name}-health",
                NodeHealthArgs(args["health"]),
                child_options(self, opts, [args["kubernetes_provider"]]),
            )
        self.register_outputs(declared_outputs(self))
