"""GKE's training queue: a ResourceFlavor per GPU node pool, on the machine's Topology levels
(catalog `topology_levels`), in a namespace at the fabric's Pod Security level, and the fabric's
ClusterTrainingRuntime (its pod wired by the fabric's spec, `wire_pod`)."""

from __future__ import annotations

import copy

from ..health.from_stack import with_pre_job_check
from ..nvidia import CONTAINER_DRIVER_DIR, GPU_RESOURCE
from ..storage.mounts import with_training_volumes
from ..workloads.queues import runtime_image, training_queue
from ..workloads.runtime import node_template
from ..workloads.settings import (
    QueuePool,
    QueueToleration,
    TrainingQueueSettings,
    TrainingRuntimeSettings,
)
from .config import GkeStackConfig
from .fabrics.by_name import fabric_of
from .fabrics.gib import ARM64_TOLERATION
from .fabrics.nvlink import (
    CHANNEL_DEVICE_CLASS,
    CHANNEL_RESOURCE,
    COMPUTE_DOMAIN_CRDS,
    compute_domain,
    with_compute_domain,
)
from .node_labels import (
    CAPACITY_LABELS,
    NODE_POOL_LABEL,
    QUEUED_PROVISIONING_CLASS,
    QUEUED_TAINT,
    SCHEDULED_MAINTENANCE_LABEL,
)


def queue_pools(cfg: GkeStackConfig) -> list[QueuePool]:
    """A ResourceFlavor per GPU pool: its nodes by GKE's node pool label, tolerating the GPU taint
    GKE puts on GPU nodes (and the arm64 one), with the pool's GPUs (and NVLink channels, one per
    node) as its quota."""
    gpus = cfg.machine.accelerator.count
    tolerations: list[QueueToleration] = [{"key": GPU_RESOURCE, "effect": "NoSchedule"}]
    if cfg.machine.arch == "arm64":
        # GKE taints arm64 nodes (A4X) as the gIB wiring tolerates (`gib.ARM64_TOLERATION`);
        # cluster-toolkit's examples/gke-a4x flavor tolerates it too.
        arm64 = ARM64_TOLERATION
        tolerations.append(
            {"key": arm64["key"], "value": arm64["value"], "effect": arm64["effect"]}
        )
    pools: list[QueuePool] = []
    for pool in cfg.pools:
        # The most nodes the pool can have: an autoscaled pool's jobs are admitted up to its
        # maximum, and the autoscaler brings the nodes they wait for.
        nodes = pool.most_nodes
        quota = {GPU_RESOURCE: nodes * gpus}
        if cfg.has_nvlink_domains:
            quota[CHANNEL_RESOURCE] = nodes
        capacity = cfg.capacity_of(pool).value
        queue_pool: QueuePool = {
            "name": pool.name,
            "node_labels": {NODE_POOL_LABEL: pool.name, **CAPACITY_LABELS.get(capacity, {})},
            "tolerations": tolerations,
            "quota": quota,
            "capacity": capacity,
        }
        if pool.autoscaling is not None:
            queue_pool["min_nodes"] = pool.node_count
        if pool.queued_provisioning:
            queue_pool["tolerations"] = [
                *tolerations,
                {"key": QUEUED_TAINT, "effect": "NoSchedule"},
            ]
            queue_pool["provisioning_class"] = QUEUED_PROVISIONING_CLASS
        pools.append(queue_pool)
    return pools


def avoiding_scheduled_maintenance(pod: dict) -> dict:
    """`pod` kept off nodes with host maintenance scheduled: every required node selector term
    (the fabric's own, if any) also asks that the node has no maintenance label."""
    pod = copy.deepcopy(pod)
    expression = {"key": SCHEDULED_MAINTENANCE_LABEL, "operator": "DoesNotExist"}
    required = (
        pod["spec"]
        .setdefault("affinity", {})
        .setdefault("nodeAffinity", {})
        .setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    )
    terms = required.setdefault("nodeSelectorTerms", [{}])
    for term in terms:
        term.setdefault("matchExpressions", []).append(expression)
    return pod


def training_runtime(cfg: GkeStackConfig) -> TrainingRuntimeSettings:
    """The fabric's runtime: the fabric's wired pod, and on A4X the NVLink channel of the training
    namespace's ComputeDomain."""
    fabric = fabric_of(cfg.machine)
    gpus = cfg.machine.accelerator.count
    pod = fabric.wire_pod(node_template(runtime_image(cfg.queues), gpus), cfg)
    pod = with_training_volumes(pod, cfg.storage)
    # GKE's device plugin mounts the driver into every container that asks for GPUs.
    pod = with_pre_job_check(pod, cfg.health, gpus, f"{CONTAINER_DRIVER_DIR}/bin/nvidia-smi")
    runtime: TrainingRuntimeSettings = {
        "name": fabric.facts.runtime,
        "pod_template": pod,
        **fabric.runtime_security,  # type: ignore[typeddict-item]
    }
    if cfg.avoid_scheduled_maintenance:
        pod = avoiding_scheduled_maintenance(pod)
        runtime["pod_template"] = pod
    if cfg.has_nvlink_domains:
        runtime["pod_template"] = with_compute_domain(pod)
        runtime["namespaced_objects"] = [compute_domain()]
        runtime["namespaced_object_crds"] = COMPUTE_DOMAIN_CRDS
    return runtime


def training_queue_of(cfg: GkeStackConfig) -> TrainingQueueSettings | None:
    """The stack's training queue (None: `queues.enabled: false`)."""
    return training_queue(
        cfg.queues,
        cfg.topology_levels,
        queue_pools(cfg),
        fabric_of(cfg.machine).pod_security,
        # Kueue refuses a claim of an unmapped DeviceClass (`kueue_config.py`).
        {CHANNEL_RESOURCE: [CHANNEL_DEVICE_CLASS]} if cfg.has_nvlink_domains else None,
        training_runtime(cfg),
        # A4X: a node pool is one NVLink domain, so its pods keep to one pool where they fit.
        NODE_POOL_LABEL if cfg.machine.nvlink_domains else None,
    )
