"""The training queue's Kueue objects (kueue.x-k8s.io/v1beta2) and its namespace, as manifests.

The shape follows cluster-toolkit's Kueue configuration for GPU node pools
(examples/gke-a3-ultragpu/kueue-configuration.yaml.tftpl): a Topology, a ResourceFlavor that
selects the GPU nodes and tolerates their taint, a ClusterQueue whose nominal quota is the GPUs,
and a LocalQueue where jobs are submitted. Here the ClusterQueue admits jobs of the training
namespace only, so no other namespace's pods draw on the GPUs through it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

KUEUE_API = "kueue.x-k8s.io/v1beta2"
KUEUE_CRDS = [
    "topologies.kueue.x-k8s.io",
    "resourceflavors.kueue.x-k8s.io",
    "clusterqueues.kueue.x-k8s.io",
    "localqueues.kueue.x-k8s.io",
    "workloadpriorityclasses.kueue.x-k8s.io",
]
COHORT_CRD = "cohorts.kueue.x-k8s.io"
PROVISIONING_CRDS = [
    "admissionchecks.kueue.x-k8s.io",
    "provisioningrequestconfigs.kueue.x-k8s.io",
]
"""Kueue's CRDs of the ProvisioningRequest admission check (gated only where a pool is queued)."""
PROVISIONING_REQUEST_CRD = "provisioningrequests.autoscaling.x-k8s.io"
"""The ProvisioningRequest API. Kueue sets its ProvisioningRequest admission check controller up
only if the API server serves it when Kueue starts (kueue cmd/kueue/main.go: "Skipping admission
check controller setup" otherwise), so Kueue waits for it where a pool is queued."""
PROVISIONING = "gpu-fabric-provisioning"
"""The AdmissionCheck and ProvisioningRequestConfig of queued pools."""
PROVISIONING_NODE_SELECTOR = "autoscaling.gke.io/provisioning-request"
"""The node label a provisioned node carries, set to its request (XPK kueue_config.yaml.j2:
`podSetUpdates.nodeSelector` from the class detail `ResizeRequestName`)."""
TOPOLOGY = "gpu-fabric"
"""The start of the Topology's name, which each ResourceFlavor names."""
CLUSTER_QUEUE = "gpu-fabric"
"""The ClusterQueue's name, which the LocalQueue names (with teams: the first team's; another
team's is `gpu-fabric-<its namespace>`)."""
COHORT = "gpu-fabric"
"""The Cohort of the teams' ClusterQueues, which holds the pools' GPUs."""
PRIORITY_CLASSES = {"very-low": 100, "low": 250, "medium": 500, "high": 750, "very-high": 1000}
"""WorkloadPriorityClasses a job names in its `kueue.x-k8s.io/priority-class` label: the five
levels of cluster-toolkit's and XPK's Kueue configurations (there as pod PriorityClasses), as
Kueue's own kind, which orders admission and preemption without changing pod priority (Kueue docs,
"Workload Priority Class")."""
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
"""The label the API server sets on every namespace to its name (Kubernetes 1.22+)."""
POD_SECURITY_ENFORCE = "pod-security.kubernetes.io/enforce"
POD_SECURITY_REASON = "gpu-fabric/pod-security-reason"
"""Why the namespace enforces the level it does, for whoever reads the namespace."""


UNBOUNDED = {"cpu": 1_000_000, "memory": 2**50}
"""CPU and memory quota of every flavor: no limit (a million cores, a pebibyte), the GPUs are the
queue's limit. They are covered so that a pod set asking for no GPU (an MPI launcher, a TrainJob
initializer) still gets its gang's flavor: Kueue admits a job to a Topology-aware queue only if
each pod set gets a flavor (kueue pkg/scheduler/flavorassigner/tas_flavorassigner.go), and a pod
set gets one only for a covered resource it asks for. The nodes' own capacity is what Topology
Aware Scheduling places pods by."""


def _named(prefix: str, spec: dict[str, Any]) -> str:
    """`prefix-<8 hex digits of spec>`. Kueue makes a Topology's levels and a Topology-aware
    flavor's labels, tolerations and Topology immutable (CEL rules of the v1beta2 CRDs) and keeps
    each in use behind its `kueue.x-k8s.io/resource-in-use` finalizer while a flavor or queue names
    it (kueue pkg/controller/tas/topology_controller.go, core/resourceflavor_controller.go). A new
    spec therefore gets a new name: Pulumi creates it, points what names it there, then deletes the
    old one, which Kueue then lets go."""
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:8]
    return f"{prefix}-{digest}"


def topology(levels: list[str]) -> dict[str, Any]:
    """The Topology: its levels' node labels, widest first."""
    spec = {"levels": [{"nodeLabel": label} for label in levels]}
    return {
        "apiVersion": KUEUE_API,
        "kind": "Topology",
        "metadata": {"name": _named(TOPOLOGY, spec)},
        "spec": spec,
    }


def resource_flavor(
    pool: str,
    node_labels: dict[str, str],
    tolerations: list[dict[str, str]],
    topology_name: str | None,
) -> dict[str, Any]:
    """A GPU pool's ResourceFlavor: its nodes by label, the tolerations admitted pods get, and
    the Topology that places them (None: quota only, no Topology Aware Scheduling)."""
    spec: dict[str, Any] = {"nodeLabels": node_labels, "tolerations": tolerations}
    if topology_name is not None:
        spec["topologyName"] = topology_name
    return {
        "apiVersion": KUEUE_API,
        "kind": "ResourceFlavor",
        "metadata": {"name": _named(pool, spec)},
        "spec": spec,
    }


def admission_check() -> dict[str, Any]:
    """The ProvisioningRequest admission check: Kueue asks for a job's nodes at once, and admits
    it when they exist (Kueue docs, "Provisioning Admission Check")."""
    return {
        "apiVersion": KUEUE_API,
        "kind": "AdmissionCheck",
        "metadata": {"name": PROVISIONING},
        "spec": {
            "controllerName": "kueue.x-k8s.io/provisioning-request",
            "parameters": {
                "apiGroup": "kueue.x-k8s.io",
                "kind": "ProvisioningRequestConfig",
                "name": PROVISIONING,
            },
        },
    }


def provisioning_request_config(provisioning_class: str, resources: list[str]) -> dict[str, Any]:
    """How Kueue asks for the nodes: the cloud's class, the resources the request is for, and the
    node selector that sends the job's pods to the nodes provisioned for it."""
    return {
        "apiVersion": KUEUE_API,
        "kind": "ProvisioningRequestConfig",
        "metadata": {"name": PROVISIONING},
        "spec": {
            "provisioningClassName": provisioning_class,
            "managedResources": resources,
            "podSetUpdates": {
                "nodeSelector": [
                    {
                        "key": PROVISIONING_NODE_SELECTOR,
                        "valueFromProvisioningClassDetail": "ResizeRequestName",
                    }
                ]
            },
        },
    }


def _resource_groups(quotas: dict[str, dict[str, int]]) -> list[dict[str, Any]]:
    """One resource group of every flavor (tried in order), each covering the same resources,
    CPU and memory without limit."""
    quotas = {flavor: {**UNBOUNDED, **quota} for flavor, quota in quotas.items()}
    covered = sorted({resource for quota in quotas.values() for resource in quota})
    return [
        {
            "coveredResources": covered,
            "flavors": [
                {
                    "name": flavor,
                    "resources": [
                        {"name": resource, "nominalQuota": quota.get(resource, 0)}
                        for resource in covered
                    ],
                }
                for flavor, quota in quotas.items()
            ],
        }
    ]


def cluster_queue(
    namespaces: list[str],
    quotas: dict[str, dict[str, int]],
    provisioned_flavors: list[str] | None = None,
    *,
    name: str = CLUSTER_QUEUE,
    weight: int | None = None,
) -> dict[str, Any]:
    """The ClusterQueue of the training `namespaces`: `quotas` is flavor -> resource -> nominal
    quota (`_resource_groups`). A higher-priority job preempts lower ones of the queue (XPK's
    `withinClusterQueue: LowerPriority`). With a fair-sharing `weight`, the queue is a team's in
    the Cohort, which holds the GPUs: its own quota is 0, it borrows what it uses, and a team
    below its share reclaims GPUs from one above it. A job admitted to one of
    `provisioned_flavors` first passes the ProvisioningRequest admission check (v1beta2's
    `admissionChecksStrategy`: the ClusterQueue has no `admissionChecks` field since Kueue 0.15)."""
    spec: dict[str, Any] = {}
    if provisioned_flavors:
        spec["admissionChecksStrategy"] = {
            "admissionChecks": [{"name": PROVISIONING, "onFlavors": provisioned_flavors}]
        }
    spec["namespaceSelector"] = namespaces_named(namespaces)
    preemption = {"withinClusterQueue": "LowerPriority"}
    if weight is not None:
        spec["cohortName"] = COHORT
        spec["fairSharing"] = {"weight": weight}
        preemption["reclaimWithinCohort"] = "Any"
        quotas = {flavor: dict.fromkeys(quota, 0) for flavor, quota in quotas.items()}
    spec["preemption"] = preemption
    spec["resourceGroups"] = _resource_groups(quotas)
    return {
        "apiVersion": KUEUE_API,
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": spec,
    }


def cohort(quotas: dict[str, dict[str, int]]) -> dict[str, Any]:
    """The teams' Cohort: the pools' GPUs, which its ClusterQueues borrow (Kueue's hierarchical
    cohorts: a Cohort's own quota is lent to the queues under it)."""
    return {
        "apiVersion": KUEUE_API,
        "kind": "Cohort",
        "metadata": {"name": COHORT},
        "spec": {"resourceGroups": _resource_groups(quotas)},
    }


def workload_priority_classes() -> list[dict[str, Any]]:
    """The WorkloadPriorityClasses (`PRIORITY_CLASSES`); a job naming none has priority 0."""
    return [
        {
            "apiVersion": KUEUE_API,
            "kind": "WorkloadPriorityClass",
            "metadata": {"name": name},
            "value": value,
            "description": f"gpu-fabric's {name} priority (cluster-toolkit's five levels).",
        }
        for name, value in PRIORITY_CLASSES.items()
    ]


def namespaces_named(namespaces: list[str]) -> dict[str, Any]:
    """A namespace selector of exactly `namespaces`, by the name label Kubernetes sets on every
    namespace (Kubernetes docs, "Well-Known Labels": kubernetes.io/metadata.name)."""
    if len(namespaces) == 1:
        return {"matchLabels": {NAMESPACE_NAME_LABEL: namespaces[0]}}
    return {
        "matchExpressions": [
            {"key": NAMESPACE_NAME_LABEL, "operator": "In", "values": list(namespaces)}
        ]
    }


def training_namespace(name: str, pod_security_level: str, reason: str) -> dict[str, Any]:
    """The namespace jobs run in, enforcing the Pod Security level its fabric's pods need."""
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": name,
            "labels": {POD_SECURITY_ENFORCE: pod_security_level},
            "annotations": {POD_SECURITY_REASON: reason},
        },
    }


def local_queue(name: str, namespace: str, queue: str = CLUSTER_QUEUE) -> dict[str, Any]:
    """The LocalQueue jobs name in their `kueue.x-k8s.io/queue-name` label, of ClusterQueue
    `queue`."""
    return {
        "apiVersion": KUEUE_API,
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": queue},
    }
