"""What a healthy ack-lingjun cluster looks like (Alibaba's Lingjun RDMA guide), and the check
against it.

Fail-closed: at least one Lingjun node (ACK's `alibabacloud.com/lingjun-worker: "true"` label);
the add-on's DaemonSet `kube-system/ack-rdma-dp-ds` rolled out on every Lingjun node, with a pod
on each; every Lingjun node advertising `rdma/hca` in its capacity and allocatable (the guide shows
`1k`). The DaemonSet's pods are found through its own selector: the add-on's labels are not
published, so nothing here assumes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpu_fabric.ack.config import AckLingjunConfig
from gpu_fabric.catalog import catalog
from verify.rollout import daemon_set_problems, read_or_none


@dataclass(frozen=True)
class Expected:
    namespace: str
    daemon_set: str
    resource: str
    worker_label: dict[str, str]

    @property
    def summary(self) -> str:
        """What an OK means, in one line."""
        label = ", ".join(f"{k}={v}" for k, v in self.worker_label.items())
        return (
            f"DaemonSet {self.namespace}/{self.daemon_set} rolled out on every Lingjun node "
            f"({label}); each advertises {self.resource}"
        )


def expected_from(cfg: AckLingjunConfig) -> Expected:
    plugin = catalog().ack.rdma_device_plugin
    return Expected(
        namespace=plugin.namespace,
        daemon_set=plugin.daemon_set,
        resource=plugin.resource,
        worker_label=catalog().ack.lingjun_nodes.worker_label,
    )


@dataclass
class Snapshot:
    """API objects as the cluster returned them (camelCase dicts); absent ones are None."""

    nodes: list[dict[str, Any]] = field(default_factory=list)
    daemon_set: dict[str, Any] | None = None
    pods: list[dict[str, Any]] = field(default_factory=list)
    """The DaemonSet's pods (by its selector)."""


def _quantity(value: Any) -> float:
    from kubernetes.utils.quantity import parse_quantity

    try:
        return float(parse_quantity(value)) if value is not None else 0.0
    except ValueError:
        return 0.0


def check(expected: Expected, snapshot: Snapshot) -> list[str]:
    """Everything that is missing or wrong, one readable line each; empty when healthy."""
    problems: list[str] = []
    lingjun_nodes = sorted(
        n["metadata"]["name"]
        for n in snapshot.nodes
        if all(
            (n["metadata"].get("labels") or {}).get(k) == v
            for k, v in expected.worker_label.items()
        )
    )
    if not lingjun_nodes:
        label = ", ".join(f"{k}={v}" for k, v in expected.worker_label.items())
        problems.append(f"no Lingjun node ({label}) has joined the cluster")
    problems += daemon_set_problems(
        expected.namespace,
        expected.daemon_set,
        snapshot.daemon_set,
        snapshot.pods,
        len(lingjun_nodes),
    )
    on_node = {
        (p.get("spec") or {}).get("nodeName")
        for p in snapshot.pods
        if (p.get("status") or {}).get("phase") == "Running"
    }
    nodes = {n["metadata"]["name"]: n for n in snapshot.nodes}
    for name in lingjun_nodes:
        if snapshot.daemon_set is not None and name not in on_node:
            problems.append(f"Node {name}: no running {expected.daemon_set} pod")
        status = nodes[name].get("status") or {}
        for part in ("capacity", "allocatable"):
            if _quantity((status.get(part) or {}).get(expected.resource)) <= 0:
                problems.append(f"Node {name}: no {expected.resource} in its {part}")
    return problems


def read_snapshot(expected: Expected, api_client: Any) -> Snapshot:
    """Fetch the objects `check` needs: the DaemonSet's pods through its own selector."""
    from kubernetes import client

    plain = api_client.sanitize_for_serialization
    core = client.CoreV1Api(api_client)
    daemon_set = read_or_none(
        lambda: plain(
            client.AppsV1Api(api_client).read_namespaced_daemon_set(
                expected.daemon_set, expected.namespace
            )
        )
    )
    pods: list[dict] = []
    selector = ((daemon_set or {}).get("spec") or {}).get("selector", {}).get("matchLabels")
    if selector:
        pods = plain(
            core.list_namespaced_pod(
                expected.namespace,
                label_selector=",".join(f"{k}={v}" for k, v in selector.items()),
            )
        )["items"]
    return Snapshot(nodes=plain(core.list_node())["items"], daemon_set=daemon_set, pods=pods)


def kubeconfig_command(cfg: AckLingjunConfig, stack: str) -> str:
    """How a user writes a kubeconfig for this stack's cluster: the stack's own output (ACK's
    client certificate, valid 3 days), into the default path."""
    cloud = cfg.cloud_stack or stack
    return f"pulumi stack output kubeconfig --show-secrets -s {cloud} > ~/.kube/config"
