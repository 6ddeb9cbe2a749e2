"""What a fabric layer's `training_queue` arg gives the training queue (`queues.py` builds it):
the GPU pools, the namespaces, the versions and the fabric's runtime. Typed dicts, so every Pulumi
language can pass them to a hosted fabric layer."""

from typing import Any, NotRequired, TypedDict

NODE = "node"
"""Trainer's replicated job and container of the training step (kubeflow/trainer
pkg/constants/constants.go: `Node`); the TrainJob's image and command go into this container."""


class QueueToleration(TypedDict):
    """A taint of a pool's nodes that the pods the queue admits there tolerate."""

    key: str
    """The taint's key."""
    effect: str
    """Its effect (`NoSchedule`, ...)."""
    value: NotRequired[str]
    """Its value (unset: any value)."""


class QueuePool(TypedDict):
    """A GPU pool the queue admits jobs to: one ResourceFlavor."""

    name: str
    """The pool's name; its flavor's name is this and a hash of the flavor's spec."""
    node_labels: dict[str, str]
    """Labels every node of the pool has, and nodes of no other pool."""
    tolerations: list[QueueToleration]
    """The pool's taints, tolerated by the pods admitted there."""
    quota: dict[str, int]
    """Resource -> what the pool has of it (`nvidia.com/gpu`: nodes x GPUs per node)."""
    capacity: NotRequired[str]
    """Where its nodes come from (`reservation`, `on-demand`, `flex-start`, `spot`), as
    `make verify` reports it (unset: not said)."""
    min_nodes: NotRequired[int]
    """The fewest nodes it keeps (an autoscaled pool's minimum: 0 lets it have none between jobs;
    unset: at least one)."""
    provisioning_class: NotRequired[str]
    """The ProvisioningRequest class its nodes come through (GKE's `queued-provisioning.gke.io`):
    Kueue asks for a job's nodes at once before admitting it there (unset: the nodes are
    there, or the autoscaler brings them)."""


class RuntimeTopology(TypedDict):
    """Where Kueue places a job's pods in the Topology."""

    level: str
    """A Topology level (its node label)."""
    required: bool
    """True: all pods in one domain of `level` or the job waits; false: as few domains as fit."""


class TrainingRuntimeSettings(TypedDict):
    """The fabric's ClusterTrainingRuntime."""

    name: str
    """Its name: what a TrainJob's `spec.runtimeRef.name` gives."""
    pod_template: dict[str, Any]
    """The fabric's wired pod template (`{metadata, spec}`), its training container `node`."""
    topology: NotRequired[RuntimeTopology]
    """Where Kueue places the pods (unset: no Topology, so no placement request)."""
    namespaced_objects: NotRequired[list[dict[str, Any]]]
    """Objects each training namespace needs for the pods (A4X: its ComputeDomain)."""
    namespaced_object_crds: NotRequired[list[str]]
    """The CRDs those objects need served first."""
    host_network_reason: NotRequired[str]
    """Why the pods use the host network (where the fabric needs it)."""
    privileged_reason: NotRequired[str]
    """Why a container of the pods is privileged (where the fabric needs it)."""
    claimed_gpus: NotRequired[int]
    """The GPUs a pod gets from a DRA claim, which Trainer does not count: a TrainJob naming the
    runtime must give `numProcPerNode` (refused at admission otherwise; unset: the GPUs are
    `nvidia.com/gpu` requests, which Trainer counts)."""


class WaitForPodsReadySettings(TypedDict):
    """Kueue's `waitForPodsReady`: an admitted job whose pods are not all ready in time is
    evicted and requeued."""

    timeout: str
    """Time from admission until every pod is ready (`45m`)."""
    backoff_limit_count: NotRequired[int]
    """Requeues before Kueue deactivates the job (unset: no limit)."""


class TrainingQueueSettings(TypedDict):
    """The training queue a fabric layer sets up: Kueue, JobSet, a Topology, flavors, queues."""

    namespace: str
    """The training namespace (created), where the LocalQueue is."""
    team_namespaces: NotRequired[list[str]]
    """Further training namespaces (created), one per team, each with a LocalQueue of the same
    name, a ClusterQueue of its own and the runtime's namespaced objects; the teams' ClusterQueues
    share the pools' GPUs in one Cohort by fair sharing."""
    team_weights: NotRequired[dict[str, int]]
    """Training namespace -> its fair-sharing weight (unset or missing: 1)."""
    wait_for_pods_ready: NotRequired[WaitForPodsReadySettings]
    """How long an admitted job's pods may take to be ready (unset: Kueue's default, 30m)."""
    local_queue: str
    """The LocalQueue's name."""
    pod_security_level: str
    """The Pod Security level the namespace enforces (`privileged`, `baseline`, `restricted`)."""
    pod_security_reason: str
    """Why that level: what the fabric's pods need."""
    topology_levels: NotRequired[list[str]]
    """The Topology's node labels, widest first, `kubernetes.io/hostname` last (unset: no
    Topology; the flavors are quota only)."""
    pools: list[QueuePool]
    """The GPU pools, in the order Kueue tries them."""
    device_class_mappings: NotRequired[dict[str, list[str]]]
    """Where DRA allocates devices: the resource the queue counts -> its DeviceClasses."""
    kueue_version: str
    """Kueue chart version."""
    jobset_version: str
    """JobSet chart version."""
    kueue_image_repository: NotRequired[str]
    """Where Kueue's image is pulled from (unset: the chart's, registry.k8s.io)."""
    jobset_image_repository: NotRequired[str]
    """Where JobSet's image is pulled from (unset: the chart's, registry.k8s.io)."""
    runtime: NotRequired[TrainingRuntimeSettings]
    """The fabric's ClusterTrainingRuntime (unset: none)."""
    trainer_version: NotRequired[str]
    """Kubeflow Trainer chart version, installed with the runtime (unset: another owner runs
    Trainer)."""


def training_namespaces(queue: TrainingQueueSettings) -> list[str]:
    """Every training namespace of the queue, the first `namespace`."""
    return [queue["namespace"], *queue.get("team_namespaces", [])]
