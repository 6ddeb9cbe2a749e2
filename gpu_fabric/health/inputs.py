"""What a fabric layer checks of its `health` arg (`gpu_fabric/layer_inputs.py`): what the stack
config would have given it, for a layer hosted in another language."""

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from ..layer_inputs import InputProblem
from ..versions import ChartVersionText
from ..workloads.config import LabelKey
from .config import ImageRegistry


def _absolute(path: str) -> str:
    if not path.startswith("/") or "/../" in f"{path}/":
        raise ValueError("give the node's absolute path, e.g. /home/kubernetes/bin/nvidia")
    return path


HEALTH_RULES = {
    "HealthSettings": {
        "gpus_per_node": Annotated[int, Field(ge=1, le=16)],
        "gpu_pools": Annotated[list[Any], Field(min_length=1)],
        "nvidia_driver_path": Annotated[str, AfterValidator(_absolute)],
        "rules": Literal["gmp", "prometheus-operator", "none"],
        "prometheus": Literal["stack", "external"],
        "node_problem_detector_version": ChartVersionText,
        "image_registry": ImageRegistry,
        "prometheus_stack_version": ChartVersionText,
    },
}
"""The checks of the `HealthSettings` arg, for each fabric layer's `LayerInputs`."""
HEALTH_RULES["HealthPool"] = {"node_labels": Annotated[dict[LabelKey, str], Field(min_length=1)]}


def health_problems(args: dict[str, Any]) -> list[InputProblem]:
    """The rules go where the metrics are: GKE's managed rules with no Prometheus of the
    stack's, a Prometheus Operator's with one."""
    health = args.get("health")
    if health is None:
        return []
    if "alertmanager_config" in health and (
        health["rules"] == "none" or health.get("prometheus") == "external"
    ):
        fix = (
            "no Alertmanager of GKE's or the stack's takes it: give rules `gmp` (GKE's managed "
            "Prometheus) or prometheus `stack`, or leave it out"
        )
        return [InputProblem("health.alertmanagerConfig", "(a configuration)", fix)]
    if health["rules"] == "gmp" and "prometheus" in health:
        fix = (
            "managed Prometheus rules (`gmp`) come with no Prometheus of the stack's; leave out "
            "prometheus, or give rules `prometheus-operator`"
        )
        return [InputProblem("health.rules", health["rules"], fix)]
    if health["rules"] == "prometheus-operator" and "prometheus" not in health:
        fix = "PrometheusRules need a Prometheus Operator: give prometheus `stack` or `external`"
        return [InputProblem("health.rules", health["rules"], fix)]
    return []
