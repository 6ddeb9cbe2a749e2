"""`make verify`'s check of the training queue, on every platform: Kueue, JobSet and Kubeflow
Trainer run, the ClusterQueue is active, the fabric's runtime is there, and every ResourceFlavor
has nodes that carry every Topology level.

Kueue counts a node for Topology Aware Scheduling only if it has every level's label (Kueue docs,
"Topology Aware Scheduling"), and admits nothing through a ClusterQueue that is not Active (its
`Active` condition: a flavor or the Topology it names is missing, or the quota is invalid).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from gpu_fabric.catalog import catalog
from gpu_fabric.workloads.queue_objects import CLUSTER_QUEUE, KUEUE_API, PROVISIONING
from gpu_fabric.workloads.queues import queue_manifests
from gpu_fabric.workloads.runtime import TRAINER_API
from gpu_fabric.workloads.settings import TrainingQueueSettings, training_namespaces

KUEUE_GROUP, KUEUE_VERSION = KUEUE_API.split("/")
TRAINER_GROUP, TRAINER_VERSION = TRAINER_API.split("/")


@dataclass
class QueueSnapshot:
    """API objects as the cluster returned them (camelCase dicts)."""

    controllers: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    """`namespace/name` of Kueue's and JobSet's Deployments -> the Deployment (None: missing)."""
    cluster_queue: dict[str, Any] | None = None
    """The first namespace's ClusterQueue."""
    team_cluster_queues: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    """A further team's ClusterQueue name -> the object (None: missing)."""
    admission_check: dict[str, Any] | None = None
    """The ProvisioningRequest AdmissionCheck, where a pool is queued (None: missing)."""
    local_queues: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    """Each training namespace -> its LocalQueue (None: missing)."""
    runtime: dict[str, Any] | None = None
    """The fabric's ClusterTrainingRuntime (None: missing, or the queue has none)."""
    claim_templates: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    """`namespace/name` of the ResourceClaimTemplates the runtime's pods claim from, in each
    training namespace -> the object (None: missing)."""
    flavor_nodes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Flavor -> the nodes its node labels select."""


def controllers(queue: TrainingQueueSettings) -> list[str]:
    """`namespace/name` of the controller Deployments the queue needs (Trainer's where the stack
    installs it)."""
    pins = catalog().workloads
    charts = [pins.kueue, pins.jobset, *([pins.trainer] if "trainer_version" in queue else [])]
    return [f"{c.namespace}/{c.controller}" for c in charts]


def runtime_claim_templates(queue: TrainingQueueSettings) -> list[str]:
    """`namespace/name` of the ResourceClaimTemplates the runtime's pods name: they must be in
    each training namespace (OKE's whole-node claim; A4X's channel, which the namespace's
    ComputeDomain's controller makes)."""
    if "runtime" not in queue:
        return []
    claims = queue["runtime"]["pod_template"]["spec"].get("resourceClaims", [])
    names = [c["resourceClaimTemplateName"] for c in claims if "resourceClaimTemplateName" in c]
    return [f"{ns}/{name}" for ns in training_namespaces(queue) for name in names]


def _selector(labels: dict[str, str]) -> str:
    """A label selector matching every one of `labels`."""
    return ",".join(f"{k}={v}" for k, v in labels.items())


def condition_of(obj: dict[str, Any], kind: str) -> dict[str, Any] | None:
    conditions = (obj.get("status") or {}).get("conditions") or []
    return next((c for c in conditions if c.get("type") == kind), None)


def queue_problems(queue: TrainingQueueSettings, snapshot: QueueSnapshot) -> list[str]:
    """What keeps the queue from admitting jobs, one readable line each; empty when usable."""
    problems = []
    for name in controllers(queue):
        deployment = snapshot.controllers.get(name)
        if deployment is None:
            problems.append(f"Deployment {name}: missing (its Helm release did not install it)")
            continue
        available = condition_of(deployment, "Available")
        if available is None or available.get("status") != "True":
            reason = (available or {}).get("message") or "no Available condition"
            problems.append(f"Deployment {name}: not available ({reason})")
    manifests = queue_manifests(queue)
    queues = {CLUSTER_QUEUE: snapshot.cluster_queue}
    for _, _, team_queue in manifests.teams.values():
        name = team_queue["metadata"]["name"]
        queues[name] = snapshot.team_cluster_queues.get(name)
    for name, found in queues.items():
        if found is None:
            problems.append(f"ClusterQueue {name}: missing")
            continue
        active = condition_of(found, "Active")
        if active is None or active.get("status") != "True":
            why = (active or {}).get("message") or "no Active condition yet"
            problems.append(f"ClusterQueue {name}: not active, admits nothing ({why})")
    if manifests.provisioning:
        problems += _admission_check_problems(snapshot.admission_check)
    for namespace in training_namespaces(queue):
        if snapshot.local_queues.get(namespace) is None:
            problems.append(f"LocalQueue {namespace}/{queue['local_queue']}: missing")
    if "runtime" in queue and snapshot.runtime is None:
        problems.append(
            f"ClusterTrainingRuntime {queue['runtime']['name']}: missing (a TrainJob naming it "
            "is refused)"
        )
    for name in runtime_claim_templates(queue):
        if snapshot.claim_templates.get(name) is None:
            problems.append(
                f"ResourceClaimTemplate {name}: missing (the runtime's pods "
                "claim from it, and cannot start without it)"
            )
    flavors = queue_manifests(queue).flavors
    for pool in queue["pools"]:
        flavor = flavors[pool["name"]]["metadata"]["name"]
        nodes = snapshot.flavor_nodes.get(pool["name"], [])
        selector = _selector(pool["node_labels"])
        if not nodes and pool.get("min_nodes", 1) > 0:
            problems.append(f"ResourceFlavor {flavor}: no node has {selector}")
        for node in nodes:
            labels = node["metadata"].get("labels") or {}
            levels = queue.get("topology_levels", [])
            missing = [level for level in levels if level not in labels]
            if missing:
                problems.append(
                    f"Node {node['metadata']['name']} (flavor {flavor}): lacks the Topology "
                    f"label(s) {', '.join(missing)}; Kueue does not place jobs on it"
                )
    return problems


def _admission_check_problems(check: dict[str, Any] | None) -> list[str]:
    """The ProvisioningRequest admission check must be Active: Kueue's controller marks it so
    once it has read its ProvisioningRequestConfig (kueue pkg/controller/admissionchecks/
    provisioning/admissioncheck_reconciler.go: reason `Active`, else `BadParametersRef`); with no
    condition at all, no controller took it up: Kueue set it up only if the ProvisioningRequest
    API was served when Kueue started."""
    if check is None:
        return [f"AdmissionCheck {PROVISIONING}: missing (queued pools' jobs are never admitted)"]
    active = condition_of(check, "Active")
    if active is None:
        return [
            f"AdmissionCheck {PROVISIONING}: no Active condition: Kueue's ProvisioningRequest "
            "controller did not take it up (the cluster did not serve the ProvisioningRequest "
            "API when Kueue started); restart Kueue's controller once it does"
        ]
    if active.get("status") != "True":
        return [
            f"AdmissionCheck {PROVISIONING}: not active ({active.get('reason')}: "
            f"{active.get('message')}); queued pools' jobs are not admitted"
        ]
    return []


def queue_report(queue: TrainingQueueSettings, snapshot: QueueSnapshot) -> list[str]:
    """One line per pool: where its nodes come from and how many there are now."""
    lines = []
    for pool in queue["pools"]:
        nodes = len(snapshot.flavor_nodes.get(pool["name"], []))
        capacity = pool.get("capacity", "capacity not said")
        queued = ", queued" if "provisioning_class" in pool else ""
        kept = f", keeps {pool['min_nodes']}" if "min_nodes" in pool else ""
        lines.append(f"pool {pool['name']} ({capacity}{queued}{kept}): {nodes} node(s) now")
    return lines


def read_queue_snapshot(queue: TrainingQueueSettings, api_client: Any) -> QueueSnapshot:
    """Fetch what `queue_problems` needs; absent objects come back None or empty."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    apps, core = client.AppsV1Api(api_client), client.CoreV1Api(api_client)
    custom = client.CustomObjectsApi(api_client)

    def or_none(read):
        try:
            return read()
        except ApiException as err:
            if err.status == 404:
                return None
            raise

    def plain(obj: Any) -> dict[str, Any] | None:
        return None if obj is None else api_client.sanitize_for_serialization(obj)

    deployments = {}
    for name in controllers(queue):
        namespace, deployment = name.split("/")
        found = or_none(lambda: apps.read_namespaced_deployment(deployment, namespace))  # noqa: B023
        deployments[name] = plain(found)
    cluster_queue = or_none(
        lambda: custom.get_cluster_custom_object(
            KUEUE_GROUP, KUEUE_VERSION, "clusterqueues", CLUSTER_QUEUE
        )
    )
    manifests = queue_manifests(queue)
    team_cluster_queues = {}
    for _, _, team_queue in manifests.teams.values():
        name = team_queue["metadata"]["name"]
        team_cluster_queues[name] = or_none(
            lambda: custom.get_cluster_custom_object(
                KUEUE_GROUP,
                KUEUE_VERSION,
                "clusterqueues",
                name,  # noqa: B023
            )
        )
    admission_check = None
    if manifests.provisioning:
        admission_check = or_none(
            lambda: custom.get_cluster_custom_object(
                KUEUE_GROUP, KUEUE_VERSION, "admissionchecks", PROVISIONING
            )
        )
    local_queues = {
        namespace: or_none(
            lambda: custom.get_namespaced_custom_object(
                KUEUE_GROUP,
                KUEUE_VERSION,
                namespace,  # noqa: B023
                "localqueues",
                queue["local_queue"],
            )
        )
        for namespace in training_namespaces(queue)
    }
    runtime = None
    if "runtime" in queue:
        name = queue["runtime"]["name"]
        runtime = or_none(
            lambda: custom.get_cluster_custom_object(
                TRAINER_GROUP, TRAINER_VERSION, "clustertrainingruntimes", name
            )
        )

    def claim_template(name: str) -> Any:
        namespace, template = name.split("/")
        return or_none(
            lambda: custom.get_namespaced_custom_object(
                "resource.k8s.io", "v1", namespace, "resourceclaimtemplates", template
            )
        )

    claim_templates = {name: claim_template(name) for name in runtime_claim_templates(queue)}
    flavor_nodes = {}
    for pool in queue["pools"]:
        selector = _selector(pool["node_labels"])
        listed = plain(core.list_node(label_selector=selector)) or {}
        flavor_nodes[pool["name"]] = cast(list[dict[str, Any]], listed.get("items") or [])
    return QueueSnapshot(
        controllers=deployments,
        cluster_queue=cast(dict[str, Any] | None, cluster_queue),
        team_cluster_queues=cast(dict[str, dict[str, Any] | None], team_cluster_queues),
        admission_check=cast(dict[str, Any] | None, admission_check),
        local_queues=cast(dict[str, dict[str, Any] | None], local_queues),
        runtime=cast(dict[str, Any] | None, runtime),
        claim_templates=cast(dict[str, dict[str, Any] | None], claim_templates),
        flavor_nodes=flavor_nodes,
    )
