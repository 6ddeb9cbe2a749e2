"""GPUDirect-RDMA (gIB) on GKE: the pod-spec wiring (`with_gib`) of A3 Ultra, A4 and A4X.

Every GKE gIB pod sees the host's driver and gIB directories at /usr/local/nvidia and
/usr/local/gib and sources /usr/local/gib/scripts/set_nccl_env.sh before NCCL runs: A3 Ultra and
A4 (amd64) as upstream's `nccl-test-rdma.yaml` (verify/upstream/,
GoogleCloudPlatform/container-engine-accelerators, the GKE doc's test pods), field for field; A4X
(arm64) as GKE's A4X doc ("Run NCCL on A4X": host /home/kubernetes/bin/nvidia and
/home/kubernetes/bin/gib mounted at /usr/local/nvidia and /usr/local/gib, LD_LIBRARY_PATH
/usr/local/nvidia/lib64), with NVIDIA AICR's `NCCL_NET=gIB` and socket interface (its A4X
networking guide and `torch-distributed-rdma` runtime, tests/upstream/, which mount the
host paths as they are). GKE's own pods source the installer's profile at
/usr/local/gib/scripts/set_nccl_env.sh, so it is written for that layout; its contents ship in
the gIB image only (UNVERIFIED here which paths it exports). A4X's
StorageClass is `storage.py`, its NVLink domains `nvlink.py`. The fabric's spec (`FABRIC`) is
at the end.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...catalog import Fabric
from ...nvidia import CONTAINER_DRIVER_DIR, GPU_RESOURCE, HOST_DRIVER_DIR
from ...pod_spec import add_items, add_named, container_named, set_fields, source_first
from ...problems import Problem
from ...problems import key as _key
from ..config import GkeA4xConfig, GkeRdmaConfig
from .image_checks import pinned_image_problems
from .spec import GkeFabricSpec

if TYPE_CHECKING:
    # The layer's args, which import the Kubernetes SDK: not needed to run the rules.
    from ..fabric_args import GkeFabricArgs

NVIDIA_HOST = HOST_DRIVER_DIR
GIB_HOST = "/home/kubernetes/bin/gib"
# Where the pod sees the host's directories (upstream nccl-test-rdma.yaml, GKE's A4X doc).
NVIDIA_MOUNT = CONTAINER_DRIVER_DIR
GIB_MOUNT = "/usr/local/gib"
NCCL_ENV_SCRIPT = f"{GIB_MOUNT}/scripts/set_nccl_env.sh"
"""What upstream's test pods source before NCCL runs (`source .../set_nccl_env.sh`)."""
GIB_ENV = [
    {"name": "LD_LIBRARY_PATH", "value": f"{NVIDIA_MOUNT}/lib64"},
    # Selects the fabric explicitly: a missing RDMA fabric fails instead of falling back (NVIDIA
    # AICR's A4X networking guide).
    {"name": "NCCL_NET", "value": "gIB"},
    {"name": "NCCL_SOCKET_IFNAME", "value": "eth0"},
]


@dataclass(frozen=True)
class GibLayout:
    """Where a pod finds the driver and the gIB plugin, and what it sources first."""

    env: list[dict[str, Any]]
    volumes: list[dict[str, Any]]
    mounts: list[dict[str, Any]]
    env_script: str | None = None
    """A script a shell-script container sources first (upstream's `set_nccl_env.sh`)."""
    gvnic_in_pod: bool = True
    """The pod gets the second gVNIC (eth1) too; else only the RDMA NICs, eth2.. as on the node."""


GIB_LAYOUTS = {
    # A4X: GKE's A4X doc's volumes and mounts, AICR's NCCL settings, and /dev/shm in memory.
    "arm64": GibLayout(
        env=GIB_ENV,
        volumes=[
            {"name": "dshm", "emptyDir": {"medium": "Memory"}},
            {"name": "library-dir-host", "hostPath": {"path": NVIDIA_HOST}},
            {"name": "gib", "hostPath": {"path": GIB_HOST}},
        ],
        mounts=[
            {"name": "dshm", "mountPath": "/dev/shm"},
            {"name": "library-dir-host", "mountPath": NVIDIA_MOUNT},
            {"name": "gib", "mountPath": GIB_MOUNT},
        ],
        env_script=NCCL_ENV_SCRIPT,
    ),
    # A3 Ultra and A4: upstream nccl-test-rdma.yaml, field for field (its volume names too).
    "amd64": GibLayout(
        env=[
            {"name": "LD_LIBRARY_PATH", "value": f"{NVIDIA_MOUNT}/lib64"},
            *[e for e in GIB_ENV if e["name"] != "LD_LIBRARY_PATH"],
        ],
        volumes=[
            {"name": "library-dir-host", "hostPath": {"path": NVIDIA_HOST}},
            {"name": "gib", "hostPath": {"path": GIB_HOST}},
            {"name": "shared-memory", "emptyDir": {"medium": "Memory"}},
        ],
        mounts=[
            {"name": "library-dir-host", "mountPath": NVIDIA_MOUNT},
            {"name": "gib", "mountPath": GIB_MOUNT},
            {"name": "shared-memory", "mountPath": "/dev/shm"},
        ],
        env_script=NCCL_ENV_SCRIPT,
        # Upstream's pods (and the GKE doc's for A3 Ultra and A4) attach eth0 and the 8 RDMA
        # NICs, eth2 to eth9: not the second gVNIC.
        gvnic_in_pod=False,
    ),
}

# a4x nodes are arm64 and carry this taint (cluster-toolkit's A4X job templates).
ARM64_TOLERATION = {
    "key": "kubernetes.io/arch",
    "operator": "Equal",
    "value": "arm64",
    "effect": "NoSchedule",
}
DEFAULT_INTERFACE = "networking.gke.io/default-interface"
INTERFACES = "networking.gke.io/interfaces"


def interfaces_annotation(networks: list[str], skip: int = 0) -> str:
    """eth0 -> GKE's default network, then eth1.. -> `networks` in NIC order, leaving out the
    first `skip` of them (their eth numbers stay taken, as on the node)."""
    interfaces = [{"interfaceName": "eth0", "network": "default"}] + [
        {"interfaceName": f"eth{i}", "network": network}
        for i, network in enumerate(networks, start=1)
        if i > skip
    ]
    return json.dumps(interfaces, separators=(",", ":"))


def with_gib(
    pod_template: dict,
    networks: list[str],
    gpus: int,
    container: str | None = None,
    *,
    arch: str,
) -> dict:
    """Return a copy of a pod template (`{metadata, spec}`) wired for GPUDirect-RDMA over gIB.

    Adds the `networking.gke.io` interface annotations (eth2.. -> the RDMA networks: 4 on A4X, 8
    on A3 Ultra and A4; eth1 -> the gVNIC network on A4X only, as AICR's runtime has it, while
    upstream's A3 Ultra/A4 pods leave it out), the shared-memory, driver and gIB mounts of
    the architecture's layout (`GIB_LAYOUTS`: both mount the host's directories at
    /usr/local/nvidia and /usr/local/gib, A4X as GKE's A4X doc, amd64 as upstream's
    nccl-test-rdma.yaml, and a `bash -c`/`sh -c` script sources set_nccl_env.sh first),
    `NCCL_NET=gIB`, IPC_LOCK, the arm64 toleration on arm64 nodes (the catalog's `arch`), and a
    request for all `gpus` GPUs of the node on the pod's first container: RDMA cannot be shared
    between pods of one node, and only the first container gets the RDMA devices (`container`, if
    given, must name it). `arch` is the nodes' (the catalog's `arch` of the machine: "arm64" on
    A4X, "amd64" on A3 Ultra and A4) and has no default: the two layouts mount different paths,
    and a pod wired for the other one starts without its NCCL libraries. Raises ValueError rather
    than overwrite something the template already sets differently.
    """
    if arch not in GIB_LAYOUTS:
        raise ValueError(
            f"with_gib: arch {arch!r} has no gIB layout; use one of {sorted(GIB_LAYOUTS)} "
            "(the catalog's `arch` of the machine type)"
        )
    template = copy.deepcopy(pod_template)
    layout = GIB_LAYOUTS[arch]
    interfaces = interfaces_annotation(networks, skip=0 if layout.gvnic_in_pod else 1)
    set_fields(
        template.setdefault("metadata", {}).setdefault("annotations", {}),
        {DEFAULT_INTERFACE: "eth0", INTERFACES: interfaces},
        "annotation",
    )

    spec = template["spec"]
    target = container_named(spec, container)
    containers = spec["containers"]
    if target is not containers[0]:
        # Upstream's pods suggest it: GKE hands a pod's RDMA devices to its first container
        # only (UNVERIFIED against a GKE page; upstream's pods have one container).
        raise ValueError(
            f"container {target['name']} is not the pod's first container "
            f"({containers[0]['name']}), and only the first gets the RDMA devices; put it first"
        )
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
    add_named(target.setdefault("env", []), layout.env, where)
    add_named(target.setdefault("volumeMounts", []), layout.mounts, where)
    add_named(spec.setdefault("volumes", []), layout.volumes, "the pod")
    if layout.env_script:
        source_first(target, layout.env_script)
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


# --- the fabric ----------------------------------------------------------------------------------


def _add_fabric_args(cfg: GkeA4xConfig | GkeRdmaConfig, args: GkeFabricArgs) -> None:
    # A4X: the NVIDIA DRA driver for NVLink across nodes, where the stack owns the installers
    # (an external owner, NVIDIA AICR's bundle, brings its own).
    if cfg.has_nvlink_domains:
        args["nvlink_driver_version"] = cfg.nvlink_driver_version


def _image_problems(cfg: GkeA4xConfig | GkeRdmaConfig) -> list[Problem]:
    """The gIB installer of the machine's architecture (arm64 on A4X, amd64 on A3 Ultra and A4):
    the other one installs a plugin the nodes cannot load."""
    if cfg.images.gib is None:
        return []
    return pinned_image_problems(
        _key("images.gib.installer"),
        cfg.images.gib.installer,
        cfg.gib_installer_default,
        f"{cfg.machine.arch} nodes take the gIB installer from",
    )


FABRIC = GkeFabricSpec(
    fabric=Fabric.GIB,
    installer_image=lambda cfg: cfg.gib_installer_image,
    add_fabric_args=_add_fabric_args,
    image_problems=_image_problems,
    pod_security=(
        "privileged",
        "gIB pods mount the driver's libraries and the gIB plugin as host paths and add IPC_LOCK "
        "(container-engine-accelerators gpudirect-rdma/nccl-test.yaml); Baseline forbids both",
    ),
    wire_pod=lambda template, cfg: with_gib(
        template,
        cfg.network_object_names,
        cfg.machine.accelerator.count,
        arch=cfg.machine.arch,
    ),
)
