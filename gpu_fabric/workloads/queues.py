"""The training queue: Kueue and JobSet, and the Kueue objects that admit a job as one gang.

A job labelled `kueue.x-k8s.io/queue-name: <local queue>` in the training namespace waits until
the whole job fits in the GPU pools' quota, then starts with all of its pods, placed by Topology
Aware Scheduling in as few topology domains as fit (Kueue docs, "Topology Aware Scheduling"; on by
default since Kueue v0.14). Each platform's fabric layer gives its pools, their node labels and
taints, and its Topology levels (`TrainingQueueSettings`).

What waits for what: the two Helm releases wait for the provider only (Helm waits for their
controllers); the Kueue objects wait for Kueue's CRDs to be served (a CRD gate after the Kueue
release, so its webhook answers too); the LocalQueue waits for its namespace. Nothing waits for
the GPU nodes: the queue admits what the nodes that are there can run.
"""

from dataclasses import dataclass
from typing import NotRequired, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from ..catalog import catalog
from ..crd_gate import CrdGate, CrdGateArgs
from ..helm import helm_release
from ..k8s_objects import custom_resource
from .config import QueuesConfig
from .kueue_config import kueue_values
from .queue_objects import (
    KUEUE_CRDS,
    cluster_queue,
    local_queue,
    resource_flavor,
    topology,
    training_namespace,
)


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


class TrainingQueueSettings(TypedDict):
    """The training queue a fabric layer sets up: Kueue, JobSet, a Topology, flavors, queues."""

    namespace: str
    """The training namespace (created), where the LocalQueue is."""
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


@dataclass(frozen=True)
class TrainingQueueArgs:
    queue: TrainingQueueSettings
    """What the queue admits and where."""
    kubeconfig: pulumi.Input[str]
    """Kubeconfig for the CRD gate (the provider's own)."""
    cluster_id: pulumi.Input[str]
    """Re-runs the gate when the cluster is replaced."""


def training_queue(
    cfg: QueuesConfig,
    topology_levels: list[str] | None,
    pools: list[QueuePool],
    pod_security: tuple[str, str],
    device_class_mappings: dict[str, list[str]] | None = None,
) -> TrainingQueueSettings | None:
    """The queue a stack's `gpu-fabric:queues` asks for (None: disabled), on its platform's
    `topology_levels` (None: no Topology; the stack's own levels win), `pools` and `pod_security`
    (level, why)."""
    if not cfg.enabled:
        return None
    pins = catalog().workloads
    queue: TrainingQueueSettings = {
        "namespace": cfg.namespace,
        "local_queue": cfg.local_queue,
        "pod_security_level": pod_security[0],
        "pod_security_reason": pod_security[1],
        "pools": pools,
        "kueue_version": cfg.kueue_version or pins.kueue.version,
        "jobset_version": cfg.jobset_version or pins.jobset.version,
    }
    if cfg.kueue_image_repository:
        queue["kueue_image_repository"] = cfg.kueue_image_repository
    if cfg.jobset_image_repository:
        queue["jobset_image_repository"] = cfg.jobset_image_repository
    levels = cfg.topology_levels or topology_levels
    if levels:
        queue["topology_levels"] = list(levels)
    if device_class_mappings:
        queue["device_class_mappings"] = device_class_mappings
    return queue


@dataclass(frozen=True)
class QueueManifests:
    """The queue's Kubernetes objects (`queue_objects.py`), as the component and `make verify`
    name them."""

    topology: dict | None
    flavors: dict[str, dict]
    """Pool name -> its ResourceFlavor."""
    cluster_queue: dict
    namespace: dict
    local_queue: dict


def queue_manifests(queue: TrainingQueueSettings) -> QueueManifests:
    levels = queue.get("topology_levels")
    tas = topology(levels) if levels else None
    flavors = {
        pool["name"]: resource_flavor(
            pool["name"],
            pool["node_labels"],
            _tolerations(pool),
            tas["metadata"]["name"] if tas else None,
        )
        for pool in queue["pools"]
    }
    quotas = {flavors[p["name"]]["metadata"]["name"]: p["quota"] for p in queue["pools"]}
    return QueueManifests(
        topology=tas,
        flavors=flavors,
        cluster_queue=cluster_queue(queue["namespace"], quotas),
        namespace=training_namespace(
            queue["namespace"], queue["pod_security_level"], queue["pod_security_reason"]
        ),
        local_queue=local_queue(queue["local_queue"], queue["namespace"]),
    )


class TrainingQueue(pulumi.ComponentResource):
    """Kueue and JobSet (Helm), then the Topology, a ResourceFlavor per pool, the ClusterQueue,
    the training namespace and its LocalQueue."""

    local_queue: pulumi.Output[str]
    """The LocalQueue's name."""
    namespace: pulumi.Output[str]
    """The training namespace."""

    def __init__(
        self, name: str, args: TrainingQueueArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:workloads:TrainingQueue", name, None, opts)
        queue, pins = args.queue, catalog().workloads
        child = pulumi.ResourceOptions(parent=self)
        values = kueue_values(queue["namespace"], queue.get("device_class_mappings", {}))
        if "kueue_image_repository" in queue:
            # charts/kueue/values.yaml: controllerManager.manager.image.repository
            image = {"image": {"repository": queue["kueue_image_repository"]}}
            values["controllerManager"] = {"manager": image}
        # Release names as the charts' READMEs install them (the controllers' names follow).
        kueue = helm_release(
            f"{name}-kueue",
            "kueue",
            pins.kueue.at(queue["kueue_version"]),
            values,
            child,
            create_namespace=True,
        )
        jobset_values = (
            # charts/jobset/values.yaml: image.repository
            {"image": {"repository": queue["jobset_image_repository"]}}
            if "jobset_image_repository" in queue
            else {}
        )
        helm_release(
            f"{name}-jobset",
            "jobset",
            pins.jobset.at(queue["jobset_version"]),
            jobset_values,
            child,
            create_namespace=True,
        )
        gate = CrdGate(
            f"{name}-kueue-crds",
            CrdGateArgs(KUEUE_CRDS, args.kubeconfig, args.cluster_id, after=[kueue]),
            child,
        )
        # The Kueue objects wait for the gate only: a ClusterQueue whose flavors are not there
        # yet is inactive until they are. A changed Topology or flavor comes under a new name
        # (`queue_objects._named`), so the default create-then-delete order holds.
        after_gate = pulumi.ResourceOptions(parent=self, depends_on=[gate])
        objects = queue_manifests(queue)
        if objects.topology is not None:
            custom_resource(f"{name}-topology", objects.topology, after_gate)
        for pool, flavor in objects.flavors.items():
            custom_resource(f"{name}-flavor-{pool}", flavor, after_gate)
        custom_resource(f"{name}-cluster-queue", objects.cluster_queue, after_gate)
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace", metadata=objects.namespace["metadata"], opts=child
        )
        lq = objects.local_queue
        lq["metadata"]["namespace"] = namespace.metadata.name
        custom_resource(f"{name}-local-queue", lq, after_gate)

        self.local_queue = pulumi.Output.from_input(queue["local_queue"])
        self.namespace = namespace.metadata.name
        self.register_outputs({"local_queue": self.local_queue, "namespace": self.namespace})


def _tolerations(pool: QueuePool) -> list[dict[str, str]]:
    return [
        {
            "key": t["key"],
            "operator": "Equal" if "value" in t else "Exists",
            **({"value": t["value"]} if "value" in t else {}),
            "effect": t["effect"],
        }
        for t in pool["tolerations"]
    ]
