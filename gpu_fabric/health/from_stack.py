"""A stack's `gpu-fabric:health` as the fabric layer's `health` arg, and its rules: each platform
gives what it knows of its nodes and metrics."""

from __future__ import annotations

from pydantic.alias_generators import to_camel

from .. import yaml_files
from ..problems import Problem
from ..problems import key as _key
from .args import HealthSettings
from .config import HealthConfig, PrometheusOwner
from .pre_job_check import with_gpu_check

_RULES_FOR = {
    PrometheusOwner.MANAGED: "gmp",
    PrometheusOwner.STACK: "prometheus-operator",
    PrometheusOwner.EXTERNAL: "prometheus-operator",
}


def prometheus_of(health: HealthConfig, platform_default: PrometheusOwner) -> PrometheusOwner:
    return health.prometheus or platform_default


def health_problems(
    health: HealthConfig, offered: tuple[PrometheusOwner, ...], platform: str
) -> list[Problem]:
    """`prometheus` is one the platform has; no key is set that `enabled: false` ignores."""
    problems = []
    if health.prometheus is not None and health.prometheus not in offered:
        choices = " or ".join(f"`{o.value}`" for o in offered)
        problems.append(
            Problem(
                _key("health.prometheus"),
                health.prometheus.value,
                f"{platform} has no `{health.prometheus.value}` Prometheus here; give {choices}, "
                "or leave the key out for the platform's default (docs/health.md)",
            )
        )
    if health.alertmanager_config is not None and health.prometheus is PrometheusOwner.EXTERNAL:
        problems.append(
            Problem(
                _key("health.alertmanagerConfig"),
                "(an Alertmanager configuration)",
                "an external Prometheus Operator's Alertmanager keeps its own configuration; "
                "remove it here and route the PrometheusRules' alerts there",
            )
        )
    if not health.enabled:
        for field in sorted(health.model_fields_set - {"enabled"}):
            name = to_camel(field)
            problems.append(
                Problem(
                    _key(f"health.{name}"),
                    getattr(health, field),
                    "has no effect with gpu-fabric:health.enabled false; remove it, or turn "
                    "health on",
                )
            )
    return problems


def with_pre_job_check(pod: dict, health: HealthConfig, gpus: int, nvidia_smi: str) -> dict:
    """The runtime's pod template with its pre-job GPU check first, where health and the check
    are on."""
    if not (health.enabled and health.pre_job_check):
        return pod
    return with_gpu_check(pod, gpus, nvidia_smi)


def health_settings(
    health: HealthConfig,
    platform_default: PrometheusOwner,
    *,
    gpus_per_node: int,
    rdma: bool,
    gpu_nodes: list[dict[str, str]],
    nvidia_driver_path: str | None = None,
    managed_rules: bool = True,
    dcgm_metrics: bool = False,
    dcgm_exporter: bool = False,
    dcgm_for_dra: bool = False,
) -> HealthSettings | None:
    """The fabric layer's `health` arg (None: `enabled: false`). `managed_rules`: the cloud's
    managed Prometheus evaluates rules (GKE: managed collection on); `dcgm_metrics`: it sends
    DCGM's metrics; `dcgm_exporter`: where it does not, the stack runs the exporter for it."""
    if not health.enabled:
        return None
    owner = prometheus_of(health, platform_default)
    rules = _RULES_FOR[owner] if owner is not PrometheusOwner.MANAGED or managed_rules else "none"
    settings: HealthSettings = {
        "gpus_per_node": gpus_per_node,
        "rdma": rdma,
        "gpu_pools": [{"node_labels": labels} for labels in gpu_nodes],
        "taint_failed_nodes": health.taint_failed_nodes,
        "rules": rules,
    }
    if nvidia_driver_path is not None:
        settings["nvidia_driver_path"] = nvidia_driver_path
    if owner is not PrometheusOwner.MANAGED:
        settings["prometheus"] = owner.value
        settings["dcgm_for_dra"] = dcgm_for_dra
    elif dcgm_metrics:
        settings["dcgm_metrics"] = True
    elif dcgm_exporter and managed_rules:
        settings["dcgm_exporter"] = True
    if health.image_registry is not None:
        settings["image_registry"] = health.image_registry
    if health.alertmanager_config is not None:
        settings["alertmanager_config"] = yaml_files.dump(health.alertmanager_config)
    return settings
