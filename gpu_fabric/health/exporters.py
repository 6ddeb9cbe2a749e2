"""The metrics the stack collects itself where the cloud does not (OKE, ACK): NVIDIA's DCGM
exporter from its upstream manifest (NVIDIA/dcgm-exporter `dcgm-exporter.yaml` and
`service-monitor.yaml` at 4.5.3-4.8.2, in `upstream/`), and kube-prometheus-stack's values.

The exporter runs on the GPU nodes only, tolerating their taints (ACK's Lingjun taint keeps
Alibaba's own GPU exporter off them unless tolerated, its Prometheus FAQ), and attributes GPUs to
pods: through the kubelet's pod-resources API for device-plugin GPUs, through the DRA API where
the GPUs come from DRA claims (`KUBERNETES_ENABLE_DRA`, NVIDIA/dcgm-exporter pkg/cmd/app.go;
default false). It gets the node's GPUs as NVIDIA's container runtime gives every container that
asks (the image's `NVIDIA_VISIBLE_DEVICES=all`): UNVERIFIED on OKE's images beside the DRA driver.
"""

from __future__ import annotations

import copy
from importlib import resources

from .. import yaml_files
from ..k8s_objects import SKIP_AWAIT
from ..nvidia import CONTAINER_DRIVER_DIR, CONTAINER_LIBRARY_DIR
from ..workload_security import NO_DIGEST, waive
from .node_problem_detector import gpu_node_affinity

UPSTREAM = resources.files(__package__) / "upstream"
NAME = "dcgm-exporter"
DCGM_EXPORTER_LABELS = {"app.kubernetes.io/name": NAME}
"""What upstream's DaemonSet puts on its pods (with its version, which a bump changes)."""


def dcgm_exporter(
    namespace: str,
    image: str,
    gpu_nodes: list[dict[str, str]],
    *,
    dra: bool,
    driver_path: str | None = None,
    service_monitor: bool = True,
) -> list[dict]:
    """Upstream's DaemonSet, Service and (`service_monitor`) ServiceMonitor in `namespace`, on
    the GPU nodes, with the catalog's image. `driver_path`: the node's driver directory, where no
    NVIDIA container runtime gives the exporter the GPUs (GKE): mounted where GKE's device plugin
    mounts it, and the container privileged to open the GPUs' device files, which no device
    plugin gives a pod that asks for no GPU (UNVERIFIED on a bundle's driver)."""
    objects = yaml_files.load_all((UPSTREAM / "dcgm-exporter.yaml").read_text())
    if service_monitor:
        objects.append(
            yaml_files.load((UPSTREAM / "dcgm-exporter-service-monitor.yaml").read_text())
        )
    out = []
    for manifest in objects:
        manifest = copy.deepcopy(manifest)
        manifest["metadata"]["namespace"] = namespace
        if manifest["kind"] == "DaemonSet":
            pod = manifest["spec"]["template"]["spec"]
            (container,) = pod["containers"]
            container["image"] = image
            if dra:
                container["env"].append({"name": "KUBERNETES_ENABLE_DRA", "value": "true"})
            if driver_path is not None:
                container["env"].append({"name": "LD_LIBRARY_PATH", "value": CONTAINER_LIBRARY_DIR})
                # The API server refuses privileged with allowPrivilegeEscalation false
                # (k8s.io/kubernetes pkg/apis/core/validation: "cannot set
                # allowPrivilegeEscalation to false and privileged to true").
                security = dict(container["securityContext"])
                security.pop("allowPrivilegeEscalation")
                container["securityContext"] = {**security, "privileged": True}
                container["volumeMounts"].append(
                    {"name": "nvidia-driver", "mountPath": CONTAINER_DRIVER_DIR, "readOnly": True}
                )
                pod["volumes"].append(
                    {
                        "name": "nvidia-driver",
                        "hostPath": {"path": driver_path, "type": "Directory"},
                    }
                )
            # Not awaited: its pods see the GPUs only where NVIDIA's container runtime gives them
            # to every container (UNVERIFIED on OKE's images beside the DRA driver); one that
            # cannot start must not hold the rest of the update. `make verify` and the
            # DcgmExporterDown alert report it.
            manifest["metadata"].setdefault("annotations", {})[SKIP_AWAIT] = "true"
            pod["affinity"] = gpu_node_affinity(gpu_nodes)
            pod["tolerations"] = [{"operator": "Exists"}]
            reasons = {
                "CKV_K8S_8": "upstream's manifest has no probe (its chart adds them)",
                "CKV_K8S_9": "upstream's manifest has no probe (its chart adds them)",
                "CKV_K8S_15": "pull policy as upstream's manifest (IfNotPresent for its "
                "pinned tag)",
                "CKV_K8S_22": "upstream's manifest: readOnlyRootFilesystem needs tmpfs "
                "volumes it does not configure",
                "CKV_K8S_23": "DCGM reads the GPUs as root (upstream's runAsUser: 0)",
                "CKV_K8S_25": "SYS_ADMIN: DCGM's profiling metrics (DCGM_FI_PROF_*) need it "
                "(upstream's manifest)",
                "CKV_K8S_29": "upstream's manifest sets no seccomp profile",
                "CKV_K8S_31": "upstream's manifest sets no seccomp profile",
                "CKV_K8S_39": "SYS_ADMIN: DCGM's profiling metrics need it (upstream)",
                "CKV_K8S_40": "DCGM reads the GPUs as root (upstream's runAsUser: 0)",
                "CKV_K8S_43": NO_DIGEST,
                "CKV2_K8S_6": "Prometheus scrapes it from the monitoring namespace",
            }
            if driver_path is not None:
                privileged = (
                    "privileged to open the GPUs' device files, which no device plugin gives a "
                    "pod that asks for no GPU (GKE without managed DCGM)"
                )
                for check in ("CKV_K8S_16", "CKV_K8S_20"):
                    reasons[check] = privileged
            manifest = waive(manifest, reasons)
        out.append(manifest)
    return out


def prometheus_stack_values() -> dict:
    """kube-prometheus-stack's values: its Prometheus reads every namespace's ServiceMonitors,
    PodMonitors and PrometheusRules (not only the release's, the chart's default), so the node
    checks' and the exporter's are scraped and evaluated. Grafana's admin password stays the
    chart's generated one (kube-prometheus-stack 88 sets none: Grafana's chart generates it into
    its Secret); its dashboard sidecar loads ConfigMaps labelled `grafana_dashboard: "1"` (the
    chart's default)."""
    every = {
        f"{kind}SelectorNilUsesHelmValues": False
        for kind in ("rule", "serviceMonitor", "podMonitor")
    }
    return {"prometheus": {"prometheusSpec": every}}
