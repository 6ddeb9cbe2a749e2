"""The fabric's Grafana dashboard, as code: per node its GPUs, their utilisation and temperature,
the node checks' verdicts, and each RDMA port's state and traffic. Grafana's dashboard JSON model
(grafana.com docs, "JSON model"); where the stack runs Grafana (kube-prometheus-stack), a ConfigMap
labelled `grafana_dashboard: "1"` loads it (the chart's dashboard sidecar)."""

from __future__ import annotations

import json

UID = "gpu-fabric-health"
SIDECAR_LABEL = {"grafana_dashboard": "1"}


def _panel(n: int, title: str, expr: str, legend: str, unit: str = "short") -> dict:
    return {
        "id": n,
        "type": "timeseries",
        "title": title,
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "gridPos": {"h": 8, "w": 12, "x": 12 * ((n - 1) % 2), "y": 8 * ((n - 1) // 2)},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "targets": [{"refId": "A", "expr": expr, "legendFormat": legend}],
    }


def dashboard() -> dict:
    panels = [
        ("GPUs per node (DCGM)", "count by (Hostname) (DCGM_FI_DEV_GPU_TEMP)", "{{Hostname}}"),
        (
            "Failed node checks",
            "max by (node, type) (problem_gauge) > 0",
            "{{node}} {{type}}",
        ),
        ("GPU utilisation", "avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL)", "{{Hostname}}", "percent"),
        ("GPU temperature", "max by (Hostname) (DCGM_FI_DEV_GPU_TEMP)", "{{Hostname}}", "celsius"),
        (
            "RDMA ports not ACTIVE",
            "count by (instance) (node_infiniband_state_id != 4)",
            "{{instance}}",
        ),
        (
            "RDMA receive per port",
            "rate(node_infiniband_port_data_received_bytes_total[5m])",
            "{{instance}} {{device}}/{{port}}",
            "Bps",
        ),
        (
            "RDMA link downs (15m)",
            "increase(node_infiniband_link_downed_total[15m])",
            "{{instance}} {{device}}/{{port}}",
        ),
        (
            "NVLink traffic per GPU",
            "rate(DCGM_FI_PROF_NVLINK_TX_BYTES[5m])",
            "{{Hostname}} GPU {{gpu}}",
            "Bps",
        ),
    ]
    return {
        "uid": UID,
        "title": "gpu-fabric: GPU nodes and rails",
        "tags": ["gpu-fabric"],
        "timezone": "utc",
        "schemaVersion": 39,
        "time": {"from": "now-6h", "to": "now"},
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "type": "datasource",
                    "query": "prometheus",
                    "label": "Data source",
                }
            ]
        },
        "panels": [_panel(n, *p) for n, p in enumerate(panels, start=1)],
    }


def dashboard_json() -> str:
    return json.dumps(dashboard(), indent=2, sort_keys=True)
