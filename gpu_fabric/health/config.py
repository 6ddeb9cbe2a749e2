"""`gpu-fabric:health`: what watches the GPU nodes, the same keys on every platform."""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from ..config_model import ConfigModel


class PrometheusOwner(str, Enum):
    """Who collects the metrics and evaluates the alert rules."""

    MANAGED = "managed"
    """The cloud's managed Prometheus: GKE's Managed Service for Prometheus (`gke.monitoring`)."""
    STACK = "stack"
    """The stack installs kube-prometheus-stack (Prometheus, Alertmanager, Grafana with the
    fabric's dashboard, node-exporter with its RDMA counters) and NVIDIA's DCGM exporter."""
    EXTERNAL = "external"
    """A Prometheus Operator the stack does not own: the stack writes the DCGM exporter, the
    ServiceMonitors and PrometheusRules it reads."""


def _alertmanager_config(value: dict[str, Any]) -> dict[str, Any]:
    missing = [key for key in ("route", "receivers") if key not in value]
    if missing:
        raise ValueError(
            f"an Alertmanager configuration needs {' and '.join(missing)} (Prometheus docs, "
            'Alertmanager "Configuration"): give route.receiver and the receivers it names'
        )
    return value


AlertmanagerConfig = Annotated[dict[str, Any], AfterValidator(_alertmanager_config)]

# A registry host (with its port) and an optional path under it: what an image's registry part
# is replaced with.
_REGISTRY = re.compile(
    r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?(:[0-9]{1,5})?(/[a-z0-9]([-a-z0-9._/]*[a-z0-9])?)?$"
)


def image_registry(value: str) -> str:
    if not _REGISTRY.match(value) or "//" in value:
        raise ValueError(
            "not a registry: write HOST[:PORT][/PATH] with no scheme, image or tag, e.g. "
            "registry.example.com/mirror"
        )
    return value


ImageRegistry = Annotated[str, AfterValidator(image_registry)]


class HealthConfig(ConfigModel):
    """GPU and RDMA checks on every GPU node, a taint that keeps new jobs off a node whose check
    fails, the runtime's pre-job GPU check, alert rules, a dashboard, and the metrics behind
    them."""

    enabled: bool = Field(
        True,
        description="node-problem-detector with the fabric's GPU and RDMA checks on every GPU "
        "node (conditions GpuCount, GpuEcc, GpuXid, and RdmaLink on RDMA fabrics; "
        "docs/health.md), their alert rules, and the metrics `prometheus` says; `false`: none "
        "of it.",
    )
    taint_failed_nodes: bool = Field(
        True,
        description="Taint a node whose check confirms a problem "
        "(`gpu-fabric.dev/unhealthy=<checks>:NoSchedule`), so no new job lands there, and take "
        "the taint off when every check passes again. Running pods stay.",
    )
    pre_job_check: bool = Field(
        False,
        description="Each pod of the fabric's training runtime first checks its node's GPUs "
        "(all there, no uncorrected ECC error; cluster-toolkit's `gpu-healthcheck`) in an "
        "init container of the runtime's image with the node's GPUs, and fails fast on a bad "
        "node. Off by default: cluster-toolkit has it in its example jobs, not its runtime, and "
        "a job of fewer GPUs per node than the machine has cannot run with it; turning it on "
        "updates the runtime in place.",
    )
    alertmanager_config: AlertmanagerConfig | None = Field(
        None,
        description="Where alerts go: an Alertmanager configuration (alertmanager.yaml as an "
        "object: `route`, `receivers`), kept a Pulumi secret (its receivers hold webhook URLs "
        "and keys). GKE: the Secret `gmp-public/alertmanager` managed Prometheus' Alertmanager "
        "reads; `stack`: kube-prometheus-stack's Alertmanager. Unset: alerts fire where the "
        "rules run (GMP's rule evaluator, Prometheus' /alerts) and go nowhere. Not with "
        "`prometheus: external` (your Alertmanager has its own).",
    )
    image_registry: ImageRegistry | None = Field(
        None,
        description="A registry mirror for every image of node health (node-problem-detector, "
        "kube-prometheus-stack's through its `global.imageRegistry`, DCGM's exporter, the taint "
        "controller's Python), where the publishers' registries (registry.k8s.io, quay.io, "
        "nvcr.io, Docker Hub) are out of reach, as from some regions: each image's registry "
        "is replaced with it, its path and tag kept (registry.k8s.io/node-problem-detector/"
        "node-problem-detector:v1.35.1 -> <mirror>/node-problem-detector/"
        "node-problem-detector:v1.35.1; Docker Hub's python -> <mirror>/library/python). "
        "Default: the publishers'.",
    )
    prometheus: PrometheusOwner | None = Field(
        None,
        description="Who collects the metrics and evaluates the alert rules: `managed` (GKE's "
        "managed Prometheus, the only one there), `stack` (kube-prometheus-stack and DCGM's "
        "exporter installed by the stack) or `external` (a Prometheus Operator of yours: "
        "only the exporter and the objects it reads). Default: `managed` on GKE, `stack` on "
        "OKE and ACK.",
    )
