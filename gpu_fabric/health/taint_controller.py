"""The taint controller's objects: `taint_failed_nodes.py` in a ConfigMap, run by one Deployment
whose identity may read and patch nodes and nothing else.

One pod for the whole cluster, not a patch right on every node: node-problem-detector's own
identity only writes node status (its chart's ClusterRole), and a DaemonSet allowed to patch nodes
would let any node taint every other. No maintained project taints on node-problem-detector's
conditions without an operator framework (medik8s' Node Healthcheck Operator needs OLM and
remediates by rebooting or re-creating nodes, a cost choice a stack should not make for its
users), so the controller is this small script.
"""

from __future__ import annotations

from importlib import resources

from ..workload_security import NO_DIGEST, waive
from .node_checks import NodeCheck

NAME = "gpu-taint-controller"
TAINT_KEY = "gpu-fabric.dev/unhealthy"
"""The taint on a node with a failed check; its value names the checks."""
SCRIPT = "taint_failed_nodes.py"
INTERVAL_SECONDS = 30
NOBODY = 65534


def script_text() -> str:
    return (resources.files(__package__) / SCRIPT).read_text()


def objects(namespace: str, image: str, checks: list[NodeCheck]) -> list[dict]:
    """The ServiceAccount, ClusterRole and binding, ConfigMap and Deployment."""
    labels = {"app.kubernetes.io/name": NAME}
    meta = {"name": NAME, "namespace": namespace, "labels": labels}
    container = {
        "name": "controller",
        "image": image,
        "imagePullPolicy": "Always",
        "command": ["python3", f"/controller/{SCRIPT}"],
        "env": [
            {"name": "CONDITIONS", "value": ",".join(c.condition for c in checks)},
            {"name": "TAINT_KEY", "value": TAINT_KEY},
            {"name": "INTERVAL_SECONDS", "value": str(INTERVAL_SECONDS)},
            {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
        ],
        "volumeMounts": [{"name": "script", "mountPath": "/controller", "readOnly": True}],
        "resources": {
            "requests": {"cpu": "10m", "memory": "32Mi"},
            "limits": {"cpu": "200m", "memory": "128Mi"},
        },
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
            "runAsUser": NOBODY,
            "runAsGroup": NOBODY,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta,
        "spec": {
            # One writer: two would race on the same patches (each is guarded by the node's
            # resourceVersion, so a race only costs a retry).
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "serviceAccountName": NAME,
                    "priorityClassName": "system-cluster-critical",
                    "containers": [container],
                    "volumes": [{"name": "script", "configMap": {"name": NAME}}],
                    "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
                },
            },
        },
    }
    deployment = waive(
        deployment,
        {
            "CKV_K8S_8": "a loop that patches nodes serves nothing a probe could ask; a crash "
            "restarts it",
            "CKV_K8S_9": "a loop that patches nodes serves nothing a probe could ask",
            "CKV_K8S_38": "it lists and patches nodes through the API server, so it needs its "
            "token; its role allows nothing else",
            "CKV_K8S_43": NO_DIGEST,
            "CKV2_K8S_6": "it only calls the API server, which a NetworkPolicy does not govern "
            "on managed control planes",
        },
    )
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": NAME, "labels": labels},
            "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["list", "patch"]}],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": NAME, "labels": labels},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": NAME,
            },
            "subjects": [{"kind": "ServiceAccount", "name": NAME, "namespace": namespace}],
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": meta,
            "data": {SCRIPT: script_text()},
        },
        deployment,
    ]
