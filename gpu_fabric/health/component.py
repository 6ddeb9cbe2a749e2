"""`NodeHealth`: the node checks, the taint controller, the alert rules and, where the stack
collects them itself, the metrics (`args.HealthSettings` says which).

What waits for what: node-problem-detector, the taint controller and GKE's rules wait for the
provider only; where the stack installs kube-prometheus-stack, what its CRDs type (ServiceMonitors,
PrometheusRules) and the dashboard (in its namespace) wait for its release.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

from .. import yaml_files
from ..catalog import catalog
from ..helm import helm_release
from ..k8s_objects import kubernetes_object
from .alerts import GROUP, rule_groups
from .args import HealthSettings
from .dashboard import SIDECAR_LABEL, UID, dashboard_json
from .exporters import DCGM_EXPORTER_LABELS, dcgm_exporter, prometheus_stack_values
from .exporters import NAME as DCGM_EXPORTER
from .mirror import NPD_IMAGE, mirrored
from .node_checks import checks_for
from .node_problem_detector import NPD_RELEASE, chart_values
from .taint_controller import objects as taint_controller_objects

PROMETHEUS_RELEASE = "kube-prometheus-stack"
NPD_LABELS = {"app.kubernetes.io/name": "node-problem-detector"}
"""What the chart puts on its pods (templates/daemonset.yaml)."""
PRIVILEGED_REASON = (
    "node-problem-detector's container is privileged (its chart's default): it reads the kernel "
    "log (/dev/kmsg) and runs the host's nvidia-smi through chroot"
)


@dataclass
class NodeHealthArgs:
    health: HealthSettings
    """What to watch and where the verdicts go (the fabric layer's `health` arg)."""


def _pod_monitoring(name: str, namespace: str, labels: dict[str, str], port: str) -> dict:
    """GKE's managed collection of the pods with `labels` (GMP's PodMonitoring)."""
    return {
        "apiVersion": "monitoring.googleapis.com/v1",
        "kind": "PodMonitoring",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "selector": {"matchLabels": labels},
            "endpoints": [{"port": port, "interval": "60s"}],
        },
    }


def health_manifests(health: HealthSettings) -> list[dict]:
    """Every object the component writes itself (not the charts'), in its namespace."""
    pins = catalog().health
    namespace = pins.namespace
    out: list[dict] = [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": namespace,
                "labels": {"pod-security.kubernetes.io/enforce": "privileged"},
                "annotations": {"gpu-fabric.dev/pod-security-reason": PRIVILEGED_REASON},
            },
        }
    ]
    checks = checks_for(rdma=health["rdma"])
    registry = health.get("image_registry")
    if health["taint_failed_nodes"]:
        image = mirrored(pins.taint_controller, registry)
        out += taint_controller_objects(namespace, image, checks)
    own_prometheus = "prometheus" in health
    exporter = own_prometheus or health.get("dcgm_exporter", False)
    if exporter:
        out += dcgm_exporter(
            namespace,
            mirrored(pins.dcgm_exporter, registry),
            [p["node_labels"] for p in health["gpu_pools"]],
            dra=health.get("dcgm_for_dra", False),
            driver_path=health.get("nvidia_driver_path"),
            service_monitor=own_prometheus,
        )
    groups = rule_groups(
        health,
        dcgm=exporter or health.get("dcgm_metrics", False),
        node_exporter=health.get("prometheus") == "stack",
    )
    if health["rules"] == "gmp" and "alertmanager_config" in health:
        # What GKE's managed Alertmanager reads (GoogleCloudPlatform/prometheus-engine
        # pkg/operator/operator_config.go: Secret `alertmanager`, key `alertmanager.yaml`, in
        # the public namespace gmp-public, which GKE makes with managed collection).
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {"name": GMP_ALERTMANAGER_SECRET, "namespace": GMP_PUBLIC},
                "type": "Opaque",
                "stringData": {GMP_ALERTMANAGER_KEY: health["alertmanager_config"]},
            }
        )
    if health["rules"] == "gmp" and exporter:
        out.append(_pod_monitoring(DCGM_EXPORTER, namespace, DCGM_EXPORTER_LABELS, "metrics"))
    if health["rules"] == "gmp":
        out.append(_pod_monitoring(NPD_RELEASE, namespace, NPD_LABELS, "exporter"))
        # ClusterRules, not Rules: namespaced Rules see their namespace's metrics only, and the
        # managed DCGM metrics are in GKE's (GMP's "Evaluate rules and alerts" guide).
        out.append(
            {
                "apiVersion": "monitoring.googleapis.com/v1",
                "kind": "ClusterRules",
                "metadata": {"name": GROUP},
                "spec": {"groups": groups},
            }
        )
    elif health["rules"] == "prometheus-operator":
        out.append(
            {
                "apiVersion": "monitoring.coreos.com/v1",
                "kind": "PrometheusRule",
                "metadata": {"name": GROUP, "namespace": namespace},
                "spec": {"groups": groups},
            }
        )
    if health.get("prometheus") == "stack":
        out.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": UID,
                    "namespace": pins.kube_prometheus_stack.namespace,
                    "labels": SIDECAR_LABEL,
                },
                "data": {f"{UID}.json": dashboard_json()},
            }
        )
    return out


_NEEDS_PROMETHEUS_STACK = {"ServiceMonitor", "PrometheusRule"}
GMP_PUBLIC = "gmp-public"
GMP_ALERTMANAGER_SECRET = "alertmanager"
GMP_ALERTMANAGER_KEY = "alertmanager.yaml"


def _registered(manifest: dict) -> dict:
    """The manifest as registered: a Secret's data a Pulumi secret."""
    if manifest["kind"] != "Secret":
        return manifest
    return {**manifest, "stringData": pulumi.Output.secret(manifest["stringData"])}


class NodeHealth(pulumi.ComponentResource):
    """node-problem-detector with the GPU and RDMA checks, the taint controller, alert rules, and
    the stack's own Prometheus and DCGM exporter where asked."""

    def __init__(
        self, name: str, args: NodeHealthArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-fabric:health:NodeHealth", name, None, opts)
        health, pins = args.health, catalog().health
        child = pulumi.ResourceOptions(parent=self)
        stack_release: pulumi.Resource | None = None
        if health.get("prometheus") == "stack":
            version = health.get("prometheus_stack_version", pins.kube_prometheus_stack.version)
            plain = prometheus_stack_values()
            if "image_registry" in health:
                plain["global"] = {"imageRegistry": health["image_registry"]}
            values: pulumi.Input[dict] = plain
            if "alertmanager_config" in health:
                # kube-prometheus-stack's `alertmanager.config`: the routes and receivers.
                config = yaml_files.load(health["alertmanager_config"])
                values = pulumi.Output.secret({**plain, "alertmanager": {"config": config}})
            stack_release = helm_release(
                f"{name}-prometheus",
                PROMETHEUS_RELEASE,
                pins.kube_prometheus_stack.at(version),
                values,
                child,
                create_namespace=True,
            )
        after_stack = (
            pulumi.ResourceOptions(parent=self, depends_on=[stack_release])
            if stack_release
            else child
        )
        manifests = health_manifests(health)
        (own,) = [m for m in manifests if m["kind"] == "Namespace"]
        namespace = kubernetes_object(f"{name}-namespace", own, child)
        in_namespace = pulumi.ResourceOptions(parent=self, depends_on=[namespace])
        for manifest in manifests:
            kind = manifest["kind"]
            meta = manifest["metadata"]
            # What the stack's Prometheus types or keeps in its namespace waits for its release,
            # what is in the health namespace for the namespace; the rest (cluster-scoped, or in
            # GKE's gmp-public) for the provider only.
            if kind == "Namespace":
                continue
            if kind in _NEEDS_PROMETHEUS_STACK or meta.get("namespace") == (
                pins.kube_prometheus_stack.namespace
            ):
                opts_for = after_stack
            elif meta.get("namespace") == pins.namespace:
                opts_for = in_namespace
            else:
                opts_for = child
            kubernetes_object(
                f"{name}-{kind.lower()}-{meta['name']}", _registered(manifest), opts_for
            )
        npd = pins.node_problem_detector
        npd_values = chart_values(health, service_monitor="prometheus" in health)
        if "image_registry" in health:
            # The chart's `image.repository`; its tag stays the chart's.
            npd_values["image"] = {"repository": mirrored(NPD_IMAGE, health["image_registry"])}
        helm_release(
            f"{name}-node-problem-detector",
            NPD_RELEASE,
            npd.at(health.get("node_problem_detector_version", npd.version)),
            npd_values,
            pulumi.ResourceOptions(
                parent=self, depends_on=[namespace, *([stack_release] if stack_release else [])]
            ),
            # Not awaited: on a GPU node its pod starts once the node's driver directory is
            # there (GKE installs the driver after the node boots), which can outlast Helm's
            # wait while GPU pools come up beside it. `make verify` and NodeChecksDown report a
            # GPU node without its detector.
            skip_await=True,
        )
        self.register_outputs({})
