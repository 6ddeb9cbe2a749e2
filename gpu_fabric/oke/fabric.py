"""OKE's in-cluster fabric layer: DRANET and the NVIDIA DRA GPU driver, claims, NCCL jobs.

It takes a Kubernetes provider and plain values; it creates nothing in OCI. A node wait waits for
the GPU instances (their names) and fails the update when they do not join. Everything else waits
for the provider only: DaemonSets need no nodes, and a ResourceClaimTemplate may name a
DeviceClass that is not there yet; the claim templates wait for the namespace they live in; the
optional NCCL jobs wait for the MPIJob CRD (a gate) and the claim templates they use.
"""

from typing import NotRequired, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from ..catalog import catalog
from ..durations import seconds_of
from ..health.args import HealthSettings
from ..health.component import NodeHealth, NodeHealthArgs
from ..layers import child_options, declared_outputs, layer_token
from ..storage.args import TrainingVolume
from ..storage.component import TrainingVolumes, TrainingVolumesArgs
from ..workloads.queues import TrainingQueue, TrainingQueueArgs
from ..workloads.settings import TrainingQueueSettings, training_namespaces
from .claims.component import ClaimTemplates
from .claims.nccl_jobs import NcclJobs, NcclJobsArgs
from .claims.plan import Claim, plan_claim
from .dranet.component import DraDrivers, DraDriversArgs
from .inputs import FABRIC_INPUTS
from .nodes.wait import GpuNodeWait, GpuNodeWaitArgs, usable_gpu_nodes


class OkeClaim(TypedDict):
    """What one pod claims on a GPU node: a ResourceClaimTemplate of that name."""

    name: str
    """Name of the ResourceClaimTemplate."""
    gpus: int
    """GPUs (NVIDIA DRA driver)."""
    rails: int
    """RDMA rails (DRANET)."""
    aligned: NotRequired[bool]
    """GPUs and rails in pairs on one PCIe root (default true)."""
    roots: NotRequired[int]
    """PCIe roots an aligned claim spreads over (default the fewest)."""


class OkeNcclTests(TypedDict):
    """NCCL all_reduce MPIJobs over some of the claims (the MPI Operator must be installed)."""

    claims: list[str]
    """The claims to run, together (their GPUs must fit a node together)."""
    image: str
    """An image with nccl-tests and Open MPI."""
    workers: int
    """Worker pods, one per GPU node."""


class OkeFabricArgs(TypedDict):
    """What OKE's fabric layer puts in the cluster."""

    kubernetes_provider: k8s.Provider
    """The provider of the cluster to fill."""
    kubeconfig: pulumi.Input[str]
    """The cluster's kubeconfig, for the MPIJob CRD gate (kubectl where `pulumi up` runs)."""
    cluster_id: pulumi.Input[str]
    """The cluster's id: the CRD gate runs again when it changes."""
    gpu_shape: str
    """The GPU nodes' shape (catalog): its PCIe topology decides the claims."""
    gpu_nodes: NotRequired[pulumi.Input[list[str]]]
    """The GPU instances' display names (the cloud layer's `gpu_nodes`): with gpu_node_count, the
    layer waits until they have joined and are Ready, and fails naming them (unset: no wait)."""
    gpu_node_ids: NotRequired[pulumi.Input[list[str]]]
    """The GPU instances' OCIDs (the cloud layer's `gpu_node_ids`), with gpu_nodes: the waits run
    again when an instance is replaced (its display name survives a replacement)."""
    gpu_node_count: NotRequired[int]
    """How many GPU nodes must join."""
    node_wait_timeout: NotRequired[str]
    """How long to wait for the GPU nodes to join and be usable (a duration: 40m, 1h30m)."""
    dranet_version: str
    """DRANET chart version."""
    dranet_image_tag: str
    """DRANET image tag (a known pair with the chart)."""
    dranet_child_cidr: NotRequired[str]
    """Range for DRANET's child interfaces (default DRANET's own)."""
    dra_gpu_driver_version: str
    """NVIDIA DRA GPU driver chart version."""
    claims: list[OkeClaim]
    """One ResourceClaimTemplate each."""
    nccl_tests: NotRequired[OkeNcclTests]
    """The NCCL jobs (unset: none)."""
    training_queue: NotRequired[TrainingQueueSettings]
    """Kueue, JobSet and the queue users' jobs go through (unset: none)."""
    health: NotRequired[HealthSettings]
    """The GPU nodes' checks, the taint on a failed one, metrics and alert rules (unset: none)."""
    training_volumes: NotRequired[list[TrainingVolume]]
    """Volumes of the training runtime (OCI File Storage exports): a claim of each in every
    training namespace of `training_queue`, which mounts them (unset: none)."""


class OkeFabric(pulumi.ComponentResource):
    """OKE's fabric layer: the RDMA namespace, both DRA drivers, DeviceClass, claim templates."""

    namespace: pulumi.Output[str]
    """The namespace of the claim templates and jobs."""
    claim_templates: pulumi.Output[list[str]]
    """The ResourceClaimTemplates' names."""

    def __init__(
        self, name: str, args: OkeFabricArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args = FABRIC_INPUTS.checked(OkeFabricArgs, name, args)
        super().__init__(layer_token(OkeFabric), name, None, opts)
        on_cluster = child_options(self, opts, [args["kubernetes_provider"]])
        charts, shape_name = catalog().oke, args["gpu_shape"]
        shape = catalog().oci_shapes[shape_name]
        # A node that fails to join fails the update, naming the instance (terraform-oci-oke and
        # oci-hpc-oke leave that check to the user; their cloud-init only logs "Error in OKE
        # startup" / "Error bootstrapping OKE").
        gpu_nodes, gpu_node_count = args.get("gpu_nodes"), args.get("gpu_node_count")
        timeout = args.get("node_wait_timeout")
        waits = {"timeout_seconds": seconds_of(timeout)} if timeout else {}
        joined = None
        if gpu_nodes is not None and gpu_node_count:
            joined = GpuNodeWait(
                f"{name}-gpu-nodes",
                GpuNodeWaitArgs(
                    kubeconfig=args["kubeconfig"],
                    cluster_id=args["cluster_id"],
                    gpu_nodes=gpu_nodes,
                    gpu_node_ids=args["gpu_node_ids"],
                    count=gpu_node_count,
                    shape=shape_name,
                    **waits,
                ),
                on_cluster,
            )
        drivers = DraDrivers(
            f"{name}-dra",
            DraDriversArgs(
                shape=shape_name,
                dranet=charts.dranet.at(args["dranet_version"]),
                dranet_image_tag=args["dranet_image_tag"],
                child_cidr=args.get("dranet_child_cidr"),
                dra_gpu_driver=catalog().nvidia_dra_driver.at(args["dra_gpu_driver_version"]),
                # Helm's wait on a DaemonSet with no pods yet is done at once: the releases wait
                # until the GPU nodes have joined, so their wait sees the nodes' pods.
                after=[joined.command] if joined else [],
            ),
            on_cluster,
        )
        # Joined is not usable: each node's ResourceSlices must publish its GPUs and rails.
        usable: list[pulumi.Resource] = []
        if joined is not None and gpu_node_count:  # (both set together, above)
            usable.append(
                usable_gpu_nodes(
                    f"{name}-gpu-nodes-usable",
                    args["kubeconfig"],
                    # Again when what publishes the devices changes: a driver's new version or
                    # values that break a node fail the update (each kubelet plugin rolls out
                    # with maxUnavailable 100%: Helm's readiness proves nothing).
                    [
                        args["cluster_id"],
                        args["gpu_node_ids"],
                        args["dranet_version"],
                        args["dranet_image_tag"],
                        args.get("dranet_child_cidr") or "",
                        args["dra_gpu_driver_version"],
                    ],
                    shape_name,
                    gpu_node_count,
                    [drivers.dranet, drivers.dra_gpu_driver],
                    on_cluster,
                    **waits,
                ).command
            )
        plans = [
            plan_claim(
                Claim(c["name"], c["gpus"], c["rails"], c.get("aligned", True), c.get("roots")),
                shape,
                shape_name,
            )
            for c in args["claims"]
        ]
        namespace = drivers.namespace.metadata.name
        templates = ClaimTemplates(f"{name}-claims", plans, namespace, on_cluster, after=usable)
        tests = args.get("nccl_tests")
        if tests:
            NcclJobs(
                f"{name}-nccl",
                NcclJobsArgs(
                    plans=[p for p in plans if p.name in tests["claims"]],
                    node_gpus=shape.gpu_count,
                    workers=tests["workers"],
                    shape=shape_name,
                    image=tests["image"],
                    namespace=namespace,
                    kubeconfig=args["kubeconfig"],
                    cluster_id=args["cluster_id"],
                    claim_templates=templates.templates,
                ),
                on_cluster,
            )
        if "training_queue" in args:
            queue = TrainingQueue(
                f"{name}-training-queue",
                TrainingQueueArgs(
                    args["training_queue"],
                    args["kubeconfig"],
                    args["cluster_id"],
                    # The runtime's whole-node claim template, after the nodes' devices.
                    runtime_after=usable,
                ),
                on_cluster,
            )
            # A pod's claims name templates of its own namespace (Kubernetes DRA, and Kueue reads
            # them there, kueue pkg/dra/claims.go): each training namespace gets them too, a
            # further team's under its namespace's name.
            teams = training_namespaces(args["training_queue"])
            for team, made in zip(teams, queue.namespaces, strict=True):
                suffix = "" if team == teams[0] else f"-{team}"
                ClaimTemplates(
                    f"{name}-training-claims{suffix}", plans, made, on_cluster, after=usable
                )
            if args.get("training_volumes"):
                TrainingVolumes(
                    f"{name}-training-volumes",
                    TrainingVolumesArgs.of(args["training_volumes"], queue),
                    on_cluster,
                )
        self.namespace = namespace
        self.claim_templates = pulumi.Output.from_input([p.name for p in plans])
        if "health" in args:
            NodeHealth(
                f"{name}-health",
                NodeHealthArgs(args["health"]),
                child_options(self, opts, [args["kubernetes_provider"]]),
            )
        self.register_outputs(declared_outputs(self))
