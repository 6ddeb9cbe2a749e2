"""The alert rules, in Prometheus' rule-group format: one source for GKE's managed Prometheus
(`ClusterRules`, monitoring.googleapis.com/v1) and a Prometheus Operator (`PrometheusRule`,
monitoring.coreos.com/v1), whose `spec.groups` are both upstream Prometheus rule groups (GMP's
"Evaluate rules and alerts" guide; prometheus-operator's PrometheusRule API).

Their inputs: node-problem-detector's `problem_gauge{type,reason}` (1 while a condition is True,
node-problem-detector's Prometheus exporter), DCGM's `DCGM_FI_*` (both exporters; the node is the
`Hostname` label), node-exporter's `node_infiniband_*` (its infiniband collector, on where the
stack installs kube-prometheus-stack).
"""

from __future__ import annotations

from .args import HealthSettings
from .node_checks import checks_for

GROUP = "gpu-fabric-health"
NPD_JOB = ".*node-problem-detector.*"
"""The scrape job of node-problem-detector's pods, under either operator (its PodMonitoring's or
Service's name)."""


def _alert(name: str, expr: str, duration: str, severity: str, summary: str, about: str) -> dict:
    return {
        "alert": name,
        "expr": expr,
        "for": duration,
        "labels": {"severity": severity},
        "annotations": {"summary": summary, "description": about},
    }


def rule_groups(health: HealthSettings, *, dcgm: bool, node_exporter: bool) -> list[dict]:
    """The groups for `health`; `dcgm`: DCGM metrics reach the Prometheus; `node_exporter`:
    node-exporter's do."""
    rules = [
        _alert(
            f"{check.condition}Failed",
            f'max by (node) (problem_gauge{{type="{check.condition}"}}) > 0',
            "1m",
            "critical",
            f"{check.condition} failed on {{{{ $labels.node }}}}",
            f"{check.means} {check.action}",
        )
        for check in checks_for(rdma=health["rdma"])
    ]
    rules.append(
        _alert(
            "NodeChecksDown",
            f'up{{job=~"{NPD_JOB}"}} == 0',
            "5m",
            "warning",
            "A GPU node's health checks are not running",
            "node-problem-detector on a GPU node has not answered for 5 minutes: its checks' "
            "verdicts are stale (a failed node would not be tainted). kubectl -n "
            "gpu-health get pods -o wide shows which.",
        )
    )
    if dcgm:
        rules += [
            _alert(
                "DcgmExporterDown",
                'up{job=~".*dcgm-exporter.*"} == 0',
                "10m",
                "warning",
                "DCGM's exporter on {{ $labels.instance }} does not answer",
                "A GPU node's DCGM exporter has not answered a scrape for 10 minutes: its GPU "
                "metrics, and the GpusMissing alert, are blind there.",
            ),
            _alert(
                "GpusMissing",
                f"count by (Hostname) (DCGM_FI_DEV_GPU_TEMP) < {health['gpus_per_node']}",
                "10m",
                "critical",
                "{{ $labels.Hostname }} reports {{ $value }} GPUs to DCGM",
                f"A GPU node has fewer than {health['gpus_per_node']} GPUs in DCGM's metrics "
                "for 10 minutes: a GPU is gone. See the node's GpuCount condition.",
            ),
            _alert(
                "GpuThermalSlowdown",
                "max by (Hostname, gpu) (DCGM_FI_DEV_GPU_TEMP) > 87",
                "10m",
                "warning",
                "GPU {{ $labels.gpu }} of {{ $labels.Hostname }} runs hot",
                "A GPU above 87 C for 10 minutes slows its clocks, and the whole NCCL job with it.",
            ),
        ]
    if node_exporter and health["rdma"]:
        rules += [
            _alert(
                "RdmaLinkFlapping",
                "increase(node_infiniband_link_downed_total[15m]) > 0",
                "0m",
                "warning",
                "RDMA port {{ $labels.device }}/{{ $labels.port }} of {{ $labels.instance }} "
                "went down",
                "The port's link went down in the last 15 minutes: NCCL traffic on that rail "
                "stalled or retried.",
            ),
            _alert(
                "RdmaPortErrors",
                "rate(node_infiniband_port_errors_received_total[5m]) > 0",
                "15m",
                "warning",
                "RDMA port {{ $labels.device }}/{{ $labels.port }} of {{ $labels.instance }} "
                "receives errors",
                "Receive errors for 15 minutes: a bad cable or optic slows every job on the rail.",
            ),
        ]
    return [{"name": GROUP, "interval": "1m", "rules": rules}]
