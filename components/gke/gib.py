"""GPUDirect-RDMA (gIB) on GKE: the pod-spec wiring (`with_gib`) of A3 Ultra, A4 and A4X.

Seed 003 and NVIDIA AICR's `torch-distributed-rdma` runtime (components/gke/upstream/) are the
source of every field here. A4X's StorageClass is `storage.py`, its runtime `training_runtime.py`.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from ..pod_spec import add_items, add_named, container_named, set_fields

GPU_RESOURCE = "nvidia.com/gpu"
NVIDIA_HOST = "/home/kubernetes/bin/nvidia"
GIB_HOST = "/home/kubernetes/bin/gib"
GIB_ENV = [
    {"name": "LD_LIBRARY_PATH", "value": f"{NVIDIA_HOST}/lib64:{GIB_HOST}"},
    # Selects the fabric explicitly: a missing RDMA fabric fails instead of falling back (seed 003).
    {"name": "NCCL_NET", "value": "gIB"},
    {"name": "NCCL_SOCKET_IFNAME", "value": "eth0"},
]
GIB_VOLUMES = [
    {"name": "dshm", "emptyDir": {"medium": "Memory"}},
    {"name": "nvidia-host", "hostPath": {"path": NVIDIA_HOST}},
    {"name": "gib-host", "hostPath": {"path": GIB_HOST}},
]
GIB_MOUNTS: list[dict[str, Any]] = [
    {"name": "dshm", "mountPath": "/dev/shm"},
    {"name": "nvidia-host", "mountPath": NVIDIA_HOST, "readOnly": True},
    {"name": "gib-host", "mountPath": GIB_HOST, "readOnly": True},
]
# a4x nodes are arm64 and carry this taint (cluster-toolkit job templates, FACTS.md).
ARM64_TOLERATION = {
    "key": "kubernetes.io/arch",
    "operator": "Equal",
    "value": "arm64",
    "effect": "NoSchedule",
}
DEFAULT_INTERFACE = "networking.gke.io/default-interface"
INTERFACES = "networking.gke.io/interfaces"


def interfaces_annotation(networks: list[str]) -> str:
    """eth0 -> GKE's default network, then eth1.. -> `networks` in NIC order."""
    interfaces = [{"interfaceName": "eth0", "network": "default"}] + [
        {"interfaceName": f"eth{i}", "network": network}
        for i, network in enumerate(networks, start=1)
    ]
    return json.dumps(interfaces, separators=(",", ":"))


def with_gib(
    pod_template: dict,
    networks: list[str],
    gpus: int,
    container: str | None = None,
    arch: str = "arm64",
) -> dict:
    """Return a copy of a pod template (`{metadata, spec}`) wired for GPUDirect-RDMA over gIB.

    Adds the `networking.gke.io` interface annotations (eth1 -> the gVNIC network, eth2.. -> the
    RDMA networks: 4 on A4X, 8 on A3 Ultra and A4), the dshm, `/home/kubernetes/bin/nvidia` and
    `/home/kubernetes/bin/gib` mounts, `NCCL_NET=gIB`, IPC_LOCK, the arm64 toleration on arm64
    nodes (the catalog's `arch`), and a request for all `gpus` GPUs of the node on `container`
    (default: the first): RDMA cannot be shared between pods of one node. Raises ValueError rather
    than overwrite something the template already sets differently.
    """
    template = copy.deepcopy(pod_template)
    set_fields(
        template.setdefault("metadata", {}).setdefault("annotations", {}),
        {DEFAULT_INTERFACE: "eth0", INTERFACES: interfaces_annotation(networks)},
        "annotation",
    )

    spec = template["spec"]
    target = container_named(spec, container)
    containers = spec["containers"]
    for other in containers:
        if other is not target and _gpu_request(other):
            raise ValueError(
                f"container {other['name']} requests GPUs; one container takes all {gpus} GPUs "
                "of the node, as RDMA cannot be shared"
            )

    requested = _gpu_request(target)
    if requested and requested != {str(gpus)}:
        raise ValueError(
            f"container {target['name']} requests {sorted(requested)} GPUs; gIB pods take all "
            f"{gpus} GPUs of the node, as RDMA cannot be shared between pods"
        )
    resources = target.setdefault("resources", {})
    for kind in ("limits", "requests"):
        resources.setdefault(kind, {})[GPU_RESOURCE] = str(gpus)

    capabilities = target.setdefault("securityContext", {}).setdefault("capabilities", {})
    add_items(capabilities.setdefault("add", []), ["IPC_LOCK"])
    where = f"container {target['name']}"
    add_named(target.setdefault("env", []), GIB_ENV, where)
    add_named(target.setdefault("volumeMounts", []), GIB_MOUNTS, where)
    add_named(spec.setdefault("volumes", []), GIB_VOLUMES, "the pod")
    if arch == "arm64":
        add_items(spec.setdefault("tolerations", []), [ARM64_TOLERATION])
    return template


def _gpu_request(container: dict) -> set[str]:
    resources = container.get("resources", {})
    return {
        str(resources[kind][GPU_RESOURCE])
        for kind in ("limits", "requests")
        if GPU_RESOURCE in resources.get(kind, {})
    }
