"""What a fabric layer's `health` arg gives the node health component (`component.py`): typed
dicts, so every Pulumi language can pass them to a hosted fabric layer."""

from typing import NotRequired, TypedDict


class HealthPool(TypedDict):
    """A GPU pool whose nodes the checks run on."""

    node_labels: dict[str, str]
    """Labels every node of the pool has."""


class HealthSettings(TypedDict):
    """Node checks on the GPU nodes, the taint on a failed one, alert rules and metrics."""

    gpus_per_node: int
    """GPUs each GPU node has (the machine's): fewer is a GpuCount problem."""
    rdma: bool
    """The fabric's NICs are RDMA NICs: the RdmaLink check runs."""
    gpu_pools: list[HealthPool]
    """The GPU pools: the checks run on nodes that have all labels of one."""
    nvidia_driver_path: NotRequired[str]
    """Where the node keeps its NVIDIA driver, mounted into the checks (GKE's
    `/home/kubernetes/bin/nvidia`); unset: the checks run the host's own `nvidia-smi` through
    chroot."""
    taint_failed_nodes: bool
    """Taint a node whose check confirms a problem, so no new job lands there, and take the taint
    off when every check passes again."""
    rules: str
    """Where the alert rules go: `gmp` (GKE's managed Prometheus `Rules`), `prometheus-operator`
    (`PrometheusRule`s), or `none`."""
    prometheus: NotRequired[str]
    """`stack`: install kube-prometheus-stack (Prometheus, Alertmanager, Grafana, node-exporter)
    and DCGM's exporter; `external`: only the exporter and the objects a Prometheus Operator
    reads; unset: the cloud's managed Prometheus (GKE)."""
    alertmanager_config: NotRequired[str]
    """Where alerts go: Alertmanager's configuration (alertmanager.yaml's text), given to GKE's
    managed Alertmanager or the stack's (unset: the rules' alerts go nowhere)."""
    image_registry: NotRequired[str]
    """A registry mirror every node health image is pulled from, its path and tag kept (unset:
    the publishers')."""
    dcgm_metrics: NotRequired[bool]
    """The cloud sends DCGM's GPU metrics (GKE's managed DCGM): their alert rules are written."""
    dcgm_exporter: NotRequired[bool]
    """Run NVIDIA's DCGM exporter under managed Prometheus too (GKE, where a pool's driver is a
    bundle's and GKE's managed DCGM does not run): scraped by a PodMonitoring."""
    dcgm_for_dra: NotRequired[bool]
    """The GPUs come from DRA claims: DCGM's exporter attributes them to pods through the DRA API
    (`KUBERNETES_ENABLE_DRA`)."""
    node_problem_detector_version: NotRequired[str]
    """node-problem-detector chart version (unset: the catalog's)."""
    prometheus_stack_version: NotRequired[str]
    """kube-prometheus-stack chart version (unset: the catalog's)."""
