"""GPUDirect-TCPXO on GKE A3 Mega: the pod wiring, and the fabric's spec (`FABRIC`: its installer
image, the NRI device injector that comes with it (`nccl_installer.py`), its image checks).

Sources: container-engine-accelerators `gpudirect-tcpxo/nccl-test-latest.yaml` (the pod-network
pattern: NRI device annotation, interfaces annotation, tcpxo-daemon, aperture devices) and
`gpudirect-tcpxo/best-practice.md` (the daemon as a native sidecar with a startup probe), both at
commit 992db812 (the test pods are kept in verify/upstream/nccl-test-tcpxo.yaml).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from ...catalog import Fabric, catalog
from ...nvidia import CONTAINER_LIBRARY_DIR, GPU_RESOURCE, HOST_LIBRARY_DIR
from ...pod_spec import add_items, add_named, container_named, set_fields, source_first
from ...problems import Problem
from ..config import GkeA3MegaConfig, InstallerOwner
from .gib import DEFAULT_INTERFACE, INTERFACES, interfaces_annotation
from .image_checks import coupled_pair_problems
from .spec import GkeFabricSpec

if TYPE_CHECKING:
    # The layer's args, which import the Kubernetes SDK: not needed to run the rules.
    from ..fabric_args import GkeFabricArgs

DAEMON = "tcpxo-daemon"
LIBRARY_DIR = CONTAINER_LIBRARY_DIR
APERTURE_DEVICES = "/dev/aperture_devices"
# The NRI device injector reads `devices.gke.io/container.<container name>` (its README).
DEVICES_ANNOTATION = f"devices.gke.io/container.{DAEMON}"
# Upstream's label and anti-affinity: one TCPXO pod per node.
ONE_PER_NODE_LABEL = {"tcpxo": "daemon"}
ONE_PER_NODE = {
    "labelSelector": {
        "matchExpressions": [{"key": "tcpxo", "operator": "In", "values": ["daemon"]}]
    },
    "topologyKey": "kubernetes.io/hostname",
}
TCPXO_VOLUMES = [
    {"name": "nvidia", "hostPath": {"path": HOST_LIBRARY_DIR}},
    {"name": "shared-memory", "emptyDir": {"medium": "Memory"}},
    {"name": "sys", "hostPath": {"path": "/sys"}},
    {"name": "proc-sys", "hostPath": {"path": "/proc/sys"}},
    {"name": "aperture-devices", "hostPath": {"path": APERTURE_DEVICES}},
]
GPU_CONTAINER_MOUNTS = [
    {"name": "nvidia", "mountPath": LIBRARY_DIR},
    {"name": "shared-memory", "mountPath": "/dev/shm"},
    {"name": "aperture-devices", "mountPath": APERTURE_DEVICES},
]
GPU_CONTAINER_ENV = [
    {"name": "LD_LIBRARY_PATH", "value": LIBRARY_DIR},
    {"name": "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY", "value": APERTURE_DEVICES},
    # The profile below is found through it (README "NCCL configs").
    {"name": "NCCL_LIB_DIR", "value": LIBRARY_DIR},
]
NCCL_ENV_PROFILE = "${NCCL_LIB_DIR}/nccl-env-profile.sh"
"""container-engine-accelerators gpudirect-tcpxo/README.md, "NCCL configs": the NCCL settings are
required, and the installer's `nccl-env-profile.sh` sets them all when the workload container
sources it at start."""
HEALTH_CHECK_FILE = "/run/health-check"  # best-practice.md: no underscore in the name


def devices_annotation(gpus: int) -> str:
    """The devices the NRI injector gives the daemon (upstream's list, one GPU per line)."""
    paths = [f"/dev/nvidia{i}" for i in range(gpus)]
    paths += ["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/dmabuf_import_helper"]
    return "".join(f"- path: {path}\n" for path in paths)


def tcpxo_daemon_container(image: str) -> dict:
    """The RxDM daemon as a native sidecar (an init container that keeps running) with the startup
    probe of best-practice.md; capabilities, not privilege, as upstream's test pods."""
    return {
        "name": DAEMON,
        "image": image,
        "restartPolicy": "Always",
        "command": ["/bin/sh", "-c"],
        "args": [
            "set -ex\n"
            "chmod 755 /fts/entrypoint_rxdm_container.sh\n"
            "/fts/entrypoint_rxdm_container.sh --num_hops=2\n"
        ],
        "securityContext": {"capabilities": {"add": ["NET_ADMIN", "NET_BIND_SERVICE"]}},
        "volumeMounts": [
            {"name": "nvidia", "mountPath": LIBRARY_DIR},
            {"name": "sys", "mountPath": "/hostsysfs"},
            {"name": "proc-sys", "mountPath": "/hostprocsysfs"},
        ],
        "env": [
            {"name": "LD_LIBRARY_PATH", "value": LIBRARY_DIR},
            {"name": "HEALTH_CHECK_LOG_FILE", "value": HEALTH_CHECK_FILE},
        ],
        "startupProbe": {
            "initialDelaySeconds": 1,
            "periodSeconds": 5,
            "timeoutSeconds": 1,
            "successThreshold": 1,
            "failureThreshold": 6,
            "exec": {"command": ["cat", HEALTH_CHECK_FILE]},
        },
    }


def with_tcpxo(
    pod_template: dict,
    daemon_image: str,
    networks: list[str],
    gpus: int = 8,
    container: str | None = None,
) -> dict:
    """Return a copy of a pod template (`{metadata, spec}`) wired for GPUDirect-TCPXO.

    Adds the NRI device annotation for the daemon, the interfaces annotation (eth1.. -> `networks`,
    `vpc1`..`vpc8` by default), the one-pod-per-node label and anti-affinity, the `tcpxo-daemon`
    native sidecar, the library, `/dev/shm`, `/sys`, `/proc/sys` and aperture-device volumes, and
    on `container` (default: the first) all `gpus` GPUs, the mounts and the environment; a
    container that runs a shell script (`bash -c`, `sh -c`) sources `nccl-env-profile.sh` first,
    as upstream's README requires (another one's entry point must). The pod stays on the pod
    network (upstream's `nccl-test-latest.yaml`); `hostNetwork: true` is refused.
    Use the daemon image that pairs with the installer (`StackConfig.tcpxo_images.daemon`). Raises
    ValueError rather than overwrite something the template already sets differently.
    """
    template = copy.deepcopy(pod_template)
    metadata = template.setdefault("metadata", {})
    set_fields(
        metadata.setdefault("annotations", {}),
        {
            DEVICES_ANNOTATION: devices_annotation(gpus),
            DEFAULT_INTERFACE: "eth0",
            INTERFACES: interfaces_annotation(networks),
        },
        "annotation",
    )
    set_fields(metadata.setdefault("labels", {}), ONE_PER_NODE_LABEL, "label")

    spec = template["spec"]
    if spec.get("hostNetwork"):
        raise ValueError("hostNetwork is true; this TCPXO pattern uses the pod network")
    target = container_named(spec, container)
    if any(c.get("name") == DAEMON for c in spec["containers"]):
        raise ValueError(f"the pod already has a container named {DAEMON}")
    limits = target.setdefault("resources", {}).setdefault("limits", {})
    if str(limits.get(GPU_RESOURCE, gpus)) != str(gpus):
        raise ValueError(
            f"container {target['name']} requests {limits[GPU_RESOURCE]} GPUs; a TCPXO pod takes "
            f"all {gpus} GPUs of its node (one per node)"
        )
    limits[GPU_RESOURCE] = gpus

    where = f"container {target['name']}"
    add_named(target.setdefault("env", []), GPU_CONTAINER_ENV, where)
    source_first(target, NCCL_ENV_PROFILE)
    add_named(target.setdefault("volumeMounts", []), GPU_CONTAINER_MOUNTS, where)
    add_named(spec.setdefault("volumes", []), TCPXO_VOLUMES, "the pod")
    add_named(
        spec.setdefault("initContainers", []), [tcpxo_daemon_container(daemon_image)], "the pod"
    )
    anti_affinity = spec.setdefault("affinity", {}).setdefault("podAntiAffinity", {})
    add_items(
        anti_affinity.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []),
        [ONE_PER_NODE],
    )
    return template


# --- the fabric ----------------------------------------------------------------------------------


def _add_fabric_args(cfg: GkeA3MegaConfig, args: GkeFabricArgs) -> None:
    if cfg.installer.owner is not InstallerOwner.EXTERNAL and FABRIC.facts.nri_device_injector:
        # The tcpxo-daemon gets its GPU devices from the NRI device injector (upstream README):
        # it comes with the installer, and an external owner applies both.
        args["nri_device_injector_image"] = cfg.nri_device_injector_image


def _image_problems(cfg: GkeA3MegaConfig) -> list[Problem]:
    """TCPXO installer and RxDM images must be a pair the catalog knows (they are coupled)."""
    return coupled_pair_problems("images.tcpxo", cfg.images.tcpxo, catalog().images.tcpxo, "RxDM")


FABRIC = GkeFabricSpec(
    fabric=Fabric.TCPXO,
    installer_image=lambda cfg: cfg.tcpxo_images.installer,
    add_fabric_args=_add_fabric_args,
    image_problems=_image_problems,
    pod_security=(
        "privileged",
        "GPUDirect-TCPXO pods mount the driver's libraries, /sys, /proc/sys and the aperture "
        "devices as host paths and give the tcpxo-daemon NET_ADMIN (container-engine-accelerators "
        "gpudirect-tcpxo/nccl-test-latest.yaml); Baseline forbids both",
    ),
    wire_pod=lambda template, cfg: with_tcpxo(
        template, cfg.tcpxo_images.daemon, cfg.network_object_names, cfg.machine.accelerator.count
    ),
)
