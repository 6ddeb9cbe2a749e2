"""The training queue's Kueue objects (kueue.x-k8s.io/v1beta2) and its namespace, as manifests.

The shape follows cluster-toolkit's Kueue configuration for GPU node pools
(examples/gke-a3-ultragpu/kueue-configuration.yaml.tftpl): a Topology, a ResourceFlavor that
selects the GPU nodes and tolerates their taint, a ClusterQueue whose nominal quota is the GPUs,
and a LocalQueue where jobs are submitted. Here the ClusterQueue admits jobs of the training
namespace only, so no other namespace's pods draw on the GPUs through it.
"""

from __future__ import annotations

from typing import Any

KUEUE_API = "kueue.x-k8s.io/v1beta2"
KUEUE_CRDS = [
    "topologies.kueue.x-k8s.io",
    "resourceflavors.kueue.x-k8s.io",
    "clusterqueues.kueue.x-k8s.io",
    "localqueues.kueue.x-k8s.io",
]
TOPOLOGY = "gpu-fabric"
"""The Topology's name, which each ResourceFlavor names."""
CLUSTER_QUEUE = "gpu-fabric"
"""The ClusterQueue's name, which the LocalQueue names."""
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
"""The label the API server sets on every namespace to its name (Kubernetes 1.22+)."""
POD_SECURITY_ENFORCE = "pod-security.kubernetes.io/enforce"
POD_SECURITY_REASON = "gpu-fabric/pod-security-reason"
"""Why the namespace enforces the level it does, for whoever reads the namespace."""


def topology(levels: list[str]) -> dict[str, Any]:
    """The Topology: its levels' node labels, widest first."""
    return {
        "apiVersion": KUEUE_API,
        "kind": "Topology",
        "metadata": {"name": TOPOLOGY},
        "spec": {"levels": [{"nodeLabel": label} for label in levels]},
    }


def resource_flavor(
    name: str, node_labels: dict[str, str], tolerations: list[dict[str, str]]
) -> dict[str, Any]:
    """A GPU pool's ResourceFlavor: its nodes by label, the tolerations admitted pods get, and
    the Topology that places them."""
    return {
        "apiVersion": KUEUE_API,
        "kind": "ResourceFlavor",
        "metadata": {"name": name},
        "spec": {
            "nodeLabels": node_labels,
            "tolerations": tolerations,
            "topologyName": TOPOLOGY,
        },
    }


def cluster_queue(namespace: str, quotas: dict[str, dict[str, int]]) -> dict[str, Any]:
    """The ClusterQueue: `quotas` is flavor -> resource -> nominal quota; every flavor covers the
    same resources (one resource group), tried in order."""
    covered = sorted({resource for quota in quotas.values() for resource in quota})
    return {
        "apiVersion": KUEUE_API,
        "kind": "ClusterQueue",
        "metadata": {"name": CLUSTER_QUEUE},
        "spec": {
            "namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: namespace}},
            "resourceGroups": [
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
            ],
        },
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


def local_queue(name: str, namespace: str) -> dict[str, Any]:
    """The LocalQueue jobs name in their `kueue.x-k8s.io/queue-name` label."""
    return {
        "apiVersion": KUEUE_API,
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": CLUSTER_QUEUE},
    }
