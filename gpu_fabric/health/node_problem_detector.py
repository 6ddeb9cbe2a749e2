"""node-problem-detector's chart values: the GPU and RDMA checks (`node_checks.py`) as a custom
plugin monitor and the fatal-XID kernel-log monitor, on the GPU nodes only.

The chart (deliveryhero/helm-charts stable/node-problem-detector, what oci-hpc-oke installs)
mounts `settings.custom_monitor_definitions` at /custom-config with mode 0755 (its
templates/daemonset.yaml), so the scripts run from there. Its container is privileged (the
chart's default): the kernel-log monitor reads /dev/kmsg and `chroot` needs CAP_SYS_CHROOT.
"""

from __future__ import annotations

import json

from ..nvidia import CONTAINER_DRIVER_DIR, CONTAINER_LIBRARY_DIR
from .args import HealthSettings
from .node_checks import ANY_XID_LINE, XID_LINE, NodeCheck, checks_for, script_text

NPD_RELEASE = "node-problem-detector"
"""The release's name: the chart names its DaemonSet after it (its fullname)."""
CONFIG = "/custom-config"
CHECKS_MONITOR = "gpu-checks.json"
XID_MONITOR = "gpu-xid-monitor.json"
HOST_SYS = "/host-sys"
HOST_ROOT = "/host"
INTERVAL = "60s"
"""How often each check runs: oci-hpc-oke's fast checks run every 60 s (its NPD doc, "Check
Schedule")."""
CHECK_TIMEOUT = "30s"
UPSTREAM_LOG_MONITORS = [
    "/config/kernel-monitor.json",
    "/config/docker-monitor.json",
    "/config/readonly-monitor.json",
]
"""The chart's own `settings.log_monitors`, kept beside the XID monitor."""


def _checks_monitor(checks: list[NodeCheck]) -> dict:
    scripted = [c for c in checks if c.script]
    return {
        "plugin": "custom",
        "pluginConfig": {
            "invoke_interval": INTERVAL,
            "timeout": CHECK_TIMEOUT,
            "max_output_length": 200,
            "concurrency": 2,
            "enable_message_change_based_condition_update": False,
        },
        "source": "gpu-fabric-health",
        "metricsReporting": True,
        "conditions": [
            {"type": c.condition, "reason": c.healthy_reason, "message": "no problem found"}
            for c in scripted
        ],
        "rules": [
            {
                "type": "permanent",
                "condition": c.condition,
                "reason": c.problem_reason,
                "path": "/bin/bash",
                "args": [f"{CONFIG}/{c.script}"],
                "timeout": CHECK_TIMEOUT,
            }
            for c in scripted
        ],
    }


def _xid_monitor() -> dict:
    """The fatal-XID condition from the kernel log, as node-problem-detector's own
    config/kernel-monitor.json reads it; any XID is also an event on the node."""
    return {
        "plugin": "kmsg",
        "logPath": "/dev/kmsg",
        "lookback": "5m",
        "bufferSize": 10,
        "source": "gpu-xid-monitor",
        "metricsReporting": True,
        "conditions": [
            {
                "type": "GpuXid",
                "reason": "GpuXidHasNoIssues",
                "message": "no fatal XID since node-problem-detector started",
            }
        ],
        "rules": [
            {"type": "temporary", "reason": "GpuXid", "pattern": ANY_XID_LINE},
            {
                "type": "permanent",
                "condition": "GpuXid",
                "reason": "GpuXidHasIssues",
                "pattern": XID_LINE,
            },
        ],
    }


def gpu_node_affinity(gpu_nodes: list[dict[str, str]]) -> dict:
    """Nodes that have every label of one of `gpu_nodes`."""
    terms = [
        {
            "matchExpressions": [
                {"key": k, "operator": "In", "values": [v]} for k, v in labels.items()
            ]
        }
        for labels in gpu_nodes
    ]
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
        }
    }


def chart_values(health: HealthSettings, *, service_monitor: bool) -> dict:
    """The chart's values for `health`; `service_monitor`: the chart's ServiceMonitor for a
    Prometheus Operator (its `metrics.serviceMonitor`)."""
    checks = checks_for(rdma=health["rdma"])
    definitions = {CHECKS_MONITOR: json.dumps(_checks_monitor(checks), indent=2)}
    definitions[XID_MONITOR] = json.dumps(_xid_monitor(), indent=2)
    definitions |= {c.script: script_text(c) for c in checks if c.script}
    env = [
        {"name": "EXPECTED_GPUS", "value": str(health["gpus_per_node"])},
        {"name": "SYSFS", "value": HOST_SYS},
    ]
    volumes = [{"name": "host-sys", "hostPath": {"path": "/sys", "type": "Directory"}}]
    mounts = [{"name": "host-sys", "mountPath": HOST_SYS, "readOnly": True}]
    if "nvidia_driver_path" in health:
        env += [
            # Mounted where GKE's device plugin mounts it into GPU containers.
            {"name": "NVIDIA_SMI", "value": f"{CONTAINER_DRIVER_DIR}/bin/nvidia-smi"},
            {"name": "LD_LIBRARY_PATH", "value": CONTAINER_LIBRARY_DIR},
        ]
        volumes.append(
            {
                "name": "nvidia-driver",
                "hostPath": {"path": health["nvidia_driver_path"], "type": "Directory"},
            }
        )
        mounts.append(
            {"name": "nvidia-driver", "mountPath": CONTAINER_DRIVER_DIR, "readOnly": True}
        )
    else:
        env.append({"name": "NVIDIA_SMI", "value": f"chroot {HOST_ROOT} nvidia-smi"})
        volumes.append({"name": "host-root", "hostPath": {"path": "/", "type": "Directory"}})
        mounts.append({"name": "host-root", "mountPath": HOST_ROOT, "readOnly": True})
    return {
        "settings": {
            "custom_monitor_definitions": definitions,
            "log_monitors": [*UPSTREAM_LOG_MONITORS, f"{CONFIG}/{XID_MONITOR}"],
            "custom_plugin_monitors": [f"{CONFIG}/{CHECKS_MONITOR}"],
        },
        "env": env,
        "extraVolumes": volumes,
        "extraVolumeMounts": mounts,
        "affinity": gpu_node_affinity([p["node_labels"] for p in health["gpu_pools"]]),
        # Every taint, the taint controller's too: a failed node must keep being checked, or its
        # taint would never come off.
        "tolerations": [{"operator": "Exists"}],
        "metrics": {"enabled": True, "serviceMonitor": {"enabled": service_monitor}},
        "resources": {
            "requests": {"cpu": "50m", "memory": "64Mi"},
            "limits": {"memory": "256Mi"},
        },
    }
