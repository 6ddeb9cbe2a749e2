"""`make verify`'s check of node health, on every platform: node-problem-detector runs on every
GPU node, each node reports every check the fabric has, freshly, and none has failed; the taint
controller runs, and a tainted node has a failed check.

Fresh: node-problem-detector writes each condition again every `settings.heartBeatPeriod` (the
chart's 5m0s) whether it changed or not (kubernetes/node-problem-detector
pkg/exporters/k8sexporter/condition/manager.go, `resyncPeriod`/`heartbeatPeriod`); a condition
whose `lastHeartbeatTime` is older than two periods and a minute (11 minutes, oci-hpc-oke's stale
alert for its 5-minute checks) is one nobody writes any more. The checks are this repository's
(`gpu_fabric/health/node_checks.py`): docs/health.md says what each means and what to do.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field
from typing import Any, cast

from gpu_fabric.catalog import catalog
from gpu_fabric.health.args import HealthSettings
from gpu_fabric.health.component import PROMETHEUS_RELEASE
from gpu_fabric.health.node_checks import checks_for
from gpu_fabric.health.node_problem_detector import NPD_RELEASE
from gpu_fabric.health.taint_controller import NAME as TAINT_CONTROLLER
from gpu_fabric.health.taint_controller import TAINT_KEY
from verify.queue import condition_of

STALE_AFTER = datetime.timedelta(minutes=11)
"""How old a check's verdict may be (above)."""
PROMETHEUS_SERVICE = f"{PROMETHEUS_RELEASE}-prometheus:9090"
"""kube-prometheus-stack's Prometheus Service (templates/prometheus/service.yaml: `<fullname>-
prometheus`, port 9090), queried through the API server's service proxy."""
GPUS_PER_HOST = "count by (Hostname) (DCGM_FI_DEV_GPU_TEMP)"
"""GPUs each node reported to DCGM's exporter in Prometheus' lookback (5 minutes): the exporter's
`Hostname` label is the node's name (NVIDIA/dcgm-exporter internal/pkg/hostname: `NODE_NAME`,
which its manifest sets to the pod's node)."""


@dataclass
class HealthSnapshot:
    """API objects as the cluster returned them (camelCase dicts)."""

    detector: dict[str, Any] | None = None
    """node-problem-detector's DaemonSet (None: missing)."""
    taint_controller: dict[str, Any] | None = None
    """The taint controller's Deployment (None: missing, or not asked for)."""
    gpu_nodes: list[dict[str, Any]] = field(default_factory=list)
    """The nodes of the GPU pools."""
    gpus_in_metrics: dict[str, int] | None = None
    """Node -> the GPUs it reported to DCGM in the last 5 minutes, from the stack's Prometheus
    (None: not read, the metrics are elsewhere)."""
    metrics_error: str | None = None
    """Why the stack's Prometheus could not be queried."""


def _time(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _age(delta: datetime.timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    return f"{minutes // 60}h{minutes % 60:02d}m" if minutes >= 60 else f"{minutes}m"


def health_problems(
    health: HealthSettings, snapshot: HealthSnapshot, now: datetime.datetime
) -> list[str]:
    """What keeps node health from watching, and every node whose check failed, one line each."""
    namespace = catalog().health.namespace
    problems = []
    detector = snapshot.detector
    if detector is None:
        problems.append(
            f"DaemonSet {namespace}/{NPD_RELEASE}: missing (its Helm release did not install it)"
        )
    else:
        status = detector.get("status") or {}
        wanted, ready = status.get("desiredNumberScheduled", 0), status.get("numberReady", 0)
        if ready < wanted:
            problems.append(
                f"DaemonSet {namespace}/{NPD_RELEASE}: {ready} of {wanted} pods ready (the "
                "nodes without one are not checked)"
            )
    if health["taint_failed_nodes"]:
        controller = snapshot.taint_controller
        available = condition_of(controller, "Available") if controller else None
        if controller is None:
            problems.append(f"Deployment {namespace}/{TAINT_CONTROLLER}: missing")
        elif available is None or available.get("status") != "True":
            why = (available or {}).get("message") or "no Available condition"
            problems.append(
                f"Deployment {namespace}/{TAINT_CONTROLLER}: not available ({why}); failed "
                "nodes are not tainted"
            )
    if snapshot.metrics_error is not None:
        problems.append(f"Prometheus {PROMETHEUS_SERVICE}: not queried ({snapshot.metrics_error})")
    checks = checks_for(rdma=health["rdma"])
    for node in snapshot.gpu_nodes:
        name = node["metadata"]["name"]
        tainted = [t for t in (node.get("spec") or {}).get("taints") or [] if t["key"] == TAINT_KEY]
        failed = []
        for check in checks:
            condition = condition_of(node, check.condition)
            if condition is None:
                problems.append(
                    f"Node {name}: no {check.condition} condition (node-problem-detector has "
                    "not reported there: is its pod running on the node?)"
                )
                continue
            status, message = condition.get("status"), condition.get("message", "")
            if status == "True":
                failed.append(check.condition)
                taint = "tainted" if tainted else "not tainted yet"
                problems.append(
                    f"Node {name}: {check.condition} failed ({message}); {taint}. {check.action}"
                )
            elif status != "False":
                problems.append(f"Node {name}: {check.condition} unknown ({message})")
            heartbeat = condition.get("lastHeartbeatTime")
            if heartbeat and now - _time(heartbeat) > STALE_AFTER:
                problems.append(
                    f"Node {name}: {check.condition} is stale (last written "
                    f"{_age(now - _time(heartbeat))} ago; node-problem-detector stopped "
                    "reporting)"
                )
        if snapshot.gpus_in_metrics is not None:
            reported = snapshot.gpus_in_metrics.get(name, 0)
            if reported < health["gpus_per_node"]:
                problems.append(
                    f"Node {name}: {reported} of {health['gpus_per_node']} GPUs in DCGM's "
                    "metrics of the last 5 minutes (kubectl -n gpu-health get pods -o wide -l "
                    "app.kubernetes.io/name=dcgm-exporter: is its exporter running and scraped?)"
                )
        if tainted and not failed:
            problems.append(
                f"Node {name}: tainted {TAINT_KEY}={tainted[0].get('value')} with no failed "
                "check (the taint controller has not taken it off: is it running?)"
            )
    return problems


def health_report(health: HealthSettings, snapshot: HealthSnapshot) -> list[str]:
    """One line: how many GPU nodes report every check."""
    names = ", ".join(c.condition for c in checks_for(rdma=health["rdma"]))
    return [f"node checks ({names}): {len(snapshot.gpu_nodes)} GPU node(s) read"]


def read_health_snapshot(health: HealthSettings, api_client: Any) -> HealthSnapshot:
    """Fetch what `health_problems` needs; absent objects come back None."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    apps, core = client.AppsV1Api(api_client), client.CoreV1Api(api_client)
    namespace = catalog().health.namespace

    def or_none(read):
        try:
            return api_client.sanitize_for_serialization(read())
        except ApiException as err:
            if err.status == 404:
                return None
            raise

    detector = or_none(lambda: apps.read_namespaced_daemon_set(NPD_RELEASE, namespace))
    controller = None
    if health["taint_failed_nodes"]:
        controller = or_none(lambda: apps.read_namespaced_deployment(TAINT_CONTROLLER, namespace))
    nodes: dict[str, dict[str, Any]] = {}
    for pool in health["gpu_pools"]:
        selector = ",".join(f"{k}={v}" for k, v in pool["node_labels"].items())
        listed = api_client.sanitize_for_serialization(core.list_node(label_selector=selector))
        for node in (listed or {}).get("items") or []:
            nodes[node["metadata"]["name"]] = node
    snapshot = HealthSnapshot(
        detector=cast(dict[str, Any] | None, detector),
        taint_controller=cast(dict[str, Any] | None, controller),
        gpu_nodes=list(nodes.values()),
    )
    if health.get("prometheus") == "stack":
        try:
            snapshot.gpus_in_metrics = _gpus_in_metrics(api_client)
        except (ApiException, OSError, KeyError, ValueError) as err:
            snapshot.metrics_error = str(err).splitlines()[0]
    return snapshot


def _gpus_in_metrics(api_client: Any) -> dict[str, int]:
    """`GPUS_PER_HOST` from the stack's Prometheus, through the API server's service proxy
    (Prometheus' HTTP API: `/api/v1/query`, an instant vector of `{metric, value: [time,
    text]}`)."""
    namespace = catalog().health.kube_prometheus_stack.namespace
    path = f"/api/v1/namespaces/{namespace}/services/{PROMETHEUS_SERVICE}/proxy/api/v1/query"
    request = api_client.param_serialize(
        "GET", path, query_params=[("query", GPUS_PER_HOST)], auth_settings=["BearerToken"]
    )
    response = api_client.call_api(*request)
    response.read()
    if response.status != 200:
        raise ValueError(f"the API server answered {response.status} for {path}")
    answer = json.loads(response.data)
    if answer.get("status") != "success":
        raise ValueError(f"Prometheus answered {answer.get('status')}: {answer.get('error')}")
    return {
        item["metric"]["Hostname"]: int(float(item["value"][1]))
        for item in answer["data"]["result"]
    }
