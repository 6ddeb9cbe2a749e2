"""GPUDirect-TCPX on GKE: the pod-spec wiring of GKE's guide "Maximize GPU network bandwidth with
GPUDirect-TCPX and multi-networking" (cloud.google.com/kubernetes-engine/docs/how-to/
gpu-bandwidth-gpudirect-tcpx), the smoke test's manifests (its component is `tcpx_smoke_test.py`),
and the fabric's spec (`FABRIC`: its installer image, its smoke test, its image checks)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ... import yaml_files
from ...catalog import Fabric, catalog
from ...nvidia import CONTAINER_LIBRARY_DIR, GPU_RESOURCE, HOST_LIBRARY_DIR
from ...pod_spec import add_items, add_named
from ...problems import Problem
from ...workload_security import secure_workload
from ..config import GkeA3HighConfig
from .image_checks import coupled_pair_problems
from .spec import GkeFabricSpec

if TYPE_CHECKING:
    # The layer's args, which import the Kubernetes SDK: not needed to run the rules.
    from ..fabric_args import GkeFabricArgs

LIBRARY_DIR = CONTAINER_LIBRARY_DIR
# The GKE GPUDirect-TCPX guide, "add GPUDirect-TCPX to a manifest" (and upstream nccl-test.yaml).
TCPX_VOLUMES = [
    {"name": "libraries", "hostPath": {"path": HOST_LIBRARY_DIR}},
    {"name": "tcpx-socket", "hostPath": {"path": "/run/tcpx"}},
]
# The guide mounts the daemon's socket directory at /tmp in GPU containers (step 3, and upstream
# nccl-test.yaml); the NCCL plugin looks for the socket there unless
# NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX says otherwise.
GPU_CONTAINER_MOUNTS = [
    {"name": "tcpx-socket", "mountPath": "/tmp"},
    {"name": "libraries", "mountPath": LIBRARY_DIR},
]
LD_LIBRARY_PATH = {"name": "LD_LIBRARY_PATH", "value": LIBRARY_DIR}
NCCL_CONFIG_FILE = Path(__file__).with_name("upstream") / "nccl-config.yaml"
"""container-engine-accelerators' gpudirect-tcpx/nccl-config.yaml: the ConfigMap of the test's
all-gather scripts (`/configs/allgather.sh`), which the test pods mount."""
NCCL_CONFIG_MAP = "nccl-configmap"
# NCCL loads its network plugin as `libnccl-net.so` from LD_LIBRARY_PATH unless NCCL_NET_PLUGIN
# says otherwise, and the guide's pods set only LD_LIBRARY_PATH: the installer puts it in the node's
# lib64. (The file name is NCCL's default, not read from the installer image: UNVERIFIED there.)
TCPX_PLUGIN_FILE = f"{LIBRARY_DIR}/libnccl-net.so"
SMOKE_TEST_NAMESPACE = "gpu-fabric-smoke-test"
"""The smoke test's own namespace (not `default`, docs/security.md), with its nccl-configmap."""
# Why the guide's pods need what checkov flags (the GKE GPUDirect-TCPX guide, "Deploy a test
# workload" and "Add GPUDirect-TCPX to your manifests").
TCPX_HOST_NETWORK = (
    "GPUDirect-TCPX pods use the host network: the tcpx-daemon serves the GPU NICs of the node "
    "(GKE GPUDirect-TCPX guide)"
)
TCPX_PRIVILEGED = (
    "the tcpx-daemon (RxDM) sidecar is privileged in the GKE GPUDirect-TCPX guide: it programs "
    "the GPU NICs' receive queues"
)
SMOKE_TEST_SIZES = {"tcpx-daemon": "daemon", "wait-for-tcpx-plugin": "small"}


def secure_tcpx_pod(manifest: dict) -> dict:
    """A TCPX test pod with the secure defaults and its waivers: the nccl-test container keeps
    the runtime's default capabilities (the image's sshd), the daemon stays privileged."""
    return secure_workload(
        manifest,
        SMOKE_TEST_SIZES,
        default_capabilities=["nccl-test"],
        host_network=TCPX_HOST_NETWORK,
        privileged=TCPX_PRIVILEGED,
    )


def wait_for_plugin_container(image: str) -> dict:
    """An init container that waits until the installer has put the plugin on this pod's node.

    The pod may be scheduled on a node before the installer DaemonSet has run there; waiting on
    the node itself is what makes the test start only when it can work.
    """
    return {
        "name": "wait-for-tcpx-plugin",
        "image": image,
        "command": [
            "/bin/sh",
            "-c",
            f"until [ -e {TCPX_PLUGIN_FILE} ]; do echo waiting for {TCPX_PLUGIN_FILE}; "
            "sleep 10; done",
        ],
        "volumeMounts": [{"name": "libraries", "mountPath": LIBRARY_DIR, "readOnly": True}],
    }


def tcpx_daemon_container(image: str) -> dict:
    """The tcpx-daemon (RxDM) sidecar of the GKE GPUDirect-TCPX guide. Privileged: it programs
    the GPU NICs."""
    return {
        "name": "tcpx-daemon",
        "image": image,
        "command": [
            "/tcpgpudmarxd/build/app/tcpgpudmarxd",
            "--gpu_nic_preset",
            "a3vm",
            "--gpu_shmem_type",
            "fd",
            "--uds_path",
            "/run/tcpx",
            "--setup_param",
            # Verbatim from the guide and upstream, escaped quotes included.
            '\\"--verbose 128 2 0 \\"',
        ],
        "securityContext": {"privileged": True},
        "volumeMounts": [
            {"name": "libraries", "mountPath": LIBRARY_DIR},
            {"name": "tcpx-socket", "mountPath": "/run/tcpx"},
        ],
        "env": [dict(LD_LIBRARY_PATH)],
    }


def _requests_gpu(container: dict) -> bool:
    resources = container.get("resources", {})
    return any(GPU_RESOURCE in resources.get(kind, {}) for kind in ("limits", "requests"))


def with_tcpx(pod_spec: dict, daemon_image: str) -> dict:
    """Return a copy of `pod_spec` wired for GPUDirect-TCPX (the GKE GPUDirect-TCPX guide's
    hostNetwork pattern).

    Adds hostNetwork with `ClusterFirstWithHostNet` DNS, the `libraries` and `tcpx-socket` host-path
    volumes, the tcpx-daemon sidecar, and to every container that requests `nvidia.com/gpu` the two
    mounts and `LD_LIBRARY_PATH`. Raises ValueError where the spec cannot be wired without
    overwriting something it already has.
    """
    spec = copy.deepcopy(pod_spec)
    containers = spec.get("containers", [])
    gpu_containers = [c for c in containers if _requests_gpu(c)]
    if not gpu_containers:
        raise ValueError(f"no container requests {GPU_RESOURCE}; TCPX serves GPU containers")
    if any(c.get("name") == "tcpx-daemon" for c in containers):
        raise ValueError("the pod already has a container named tcpx-daemon")
    taken = {v["name"] for v in spec.get("volumes", [])} & {v["name"] for v in TCPX_VOLUMES}
    if taken:
        raise ValueError(f"the pod already has volumes named {sorted(taken)}")
    if spec.get("hostNetwork") is False:
        raise ValueError("hostNetwork is false; this TCPX pattern needs hostNetwork: true")

    spec["hostNetwork"] = True
    spec["dnsPolicy"] = "ClusterFirstWithHostNet"
    spec["volumes"] = [*spec.get("volumes", []), *copy.deepcopy(TCPX_VOLUMES)]
    for container in gpu_containers:
        mounts = container.setdefault("volumeMounts", [])
        clash = {m["mountPath"] for m in mounts} & {m["mountPath"] for m in GPU_CONTAINER_MOUNTS}
        if clash:
            raise ValueError(f"container {container['name']} already mounts {sorted(clash)}")
        mounts.extend(copy.deepcopy(GPU_CONTAINER_MOUNTS))
        env = container.setdefault("env", [])
        if any(e["name"] == "LD_LIBRARY_PATH" for e in env):
            raise ValueError(f"container {container['name']} already sets LD_LIBRARY_PATH")
        env.append(dict(LD_LIBRARY_PATH))
    spec["containers"] = [tcpx_daemon_container(daemon_image), *containers]
    return spec


def nccl_config_map() -> dict:
    """Upstream's nccl-configmap, as vendored (a copy)."""
    config_map = yaml_files.read(NCCL_CONFIG_FILE)
    assert config_map["metadata"]["name"] == NCCL_CONFIG_MAP  # the name the pods mount
    return config_map


def smoke_test_manifests(test_image: str, daemon_image: str, hosts: int = 2) -> list[dict]:
    """The GKE GPUDirect-TCPX guide's test workload: upstream's nccl-configmap, and per host a
    headless Service and a pod wired by `with_tcpx`.

    Run the all-gather of docs/gke.md once both pods are Running.
    """
    manifests: list[dict] = [nccl_config_map()]
    for host in range(1, hosts + 1):
        label = {"name": f"nccl-host-{host}"}
        pod_spec = with_tcpx(
            {
                "hostname": f"host{host}",
                "subdomain": f"nccl-host-{host}",
                "containers": [
                    {
                        "name": "nccl-test",
                        "image": test_image,
                        "command": ["/bin/sh", "-c", "while true; do echo hello; sleep 1; done"],
                        "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}},
                        "resources": {"limits": {GPU_RESOURCE: 8}},
                        "volumeMounts": [{"name": "config-volume", "mountPath": "/configs"}],
                    }
                ],
                # Upstream's nccl-config.yaml (the all-gather scripts), created with the pods.
                "volumes": [
                    {
                        "name": "config-volume",
                        "configMap": {"name": NCCL_CONFIG_MAP, "defaultMode": 0o777},
                    }
                ],
            },
            daemon_image,
        )
        pod_spec["initContainers"] = [wait_for_plugin_container(test_image)]
        manifests += [
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": f"nccl-host-{host}"},
                "spec": {"selector": label, "clusterIP": "None"},
            },
            secure_tcpx_pod(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": f"nccl-test-host-{host}", "labels": label},
                    "spec": pod_spec,
                }
            ),
        ]
    return manifests


# --- the fabric ----------------------------------------------------------------------------------


def _add_fabric_args(cfg: GkeA3HighConfig, args: GkeFabricArgs) -> None:
    if cfg.smoke_test:
        # The installer image carries NCCL and the plugin, as in the GKE guide's test pods.
        images = cfg.tcpx_images
        args["smoke_test"] = {"test_image": images.installer, "daemon_image": images.daemon}


def _image_problems(cfg: GkeA3HighConfig) -> list[Problem]:
    """The TCPX installer and tcpx-daemon images must be a pair the catalog knows (coupled)."""
    pinned = catalog().images.tcpx
    return coupled_pair_problems("images.tcpx", cfg.images.tcpx, pinned, "tcpx-daemon")


_NCCL_SETTING = re.compile(r'-x (NCCL_\w+)=("?)([^"\s]+)\2')


def nccl_settings() -> list[dict[str, str]]:
    """NCCL's settings for GPUDirect-TCPX, as upstream's test passes them to every rank (the
    `-x NCCL_...` of `run-nccl.sh` in the vendored nccl-config.yaml), as env vars."""
    script = nccl_config_map()["data"]["run-nccl.sh"]
    return [{"name": name, "value": value} for name, _, value in _NCCL_SETTING.findall(script)]


def _wire_pod(template: dict, cfg: GkeA3HighConfig) -> dict:
    """`with_tcpx` for a training job: NCCL's TCPX settings in the GPU container's env and
    IPC_LOCK, as upstream's test gives its ranks (gpudirect-tcpx/nccl-test-latest.yaml and
    nccl-config.yaml), and the tcpx-daemon as a native sidecar (an init container that keeps
    running, `restartPolicy: Always`): a training job's pods complete when its training container
    does, which a daemon in `containers` would never let them (Kubernetes docs, "Sidecar
    Containers", stable since v1.33). The guide's long-running test pods keep it in `containers`."""
    wired = copy.deepcopy(template)
    spec = with_tcpx(wired["spec"], cfg.tcpx_images.daemon)
    for container in (c for c in spec["containers"] if _requests_gpu(c)):
        add_named(
            container.setdefault("env", []), nccl_settings(), f"container {container['name']}"
        )
        capabilities = container.setdefault("securityContext", {}).setdefault("capabilities", {})
        add_items(capabilities.setdefault("add", []), ["IPC_LOCK"])
    daemon = next(c for c in spec["containers"] if c["name"] == "tcpx-daemon")
    spec["containers"] = [c for c in spec["containers"] if c is not daemon]
    spec.setdefault("initContainers", []).append({**daemon, "restartPolicy": "Always"})
    # /dev/shm in memory, as the other fabrics' runtimes and upstream's TCPXO and gIB test pods
    # have it: a container's own is 64 MiB (the container runtime's default), which NCCL's
    # shared-memory transport and PyTorch's DataLoader workers outgrow.
    add_named(spec.setdefault("volumes", []), [SHARED_MEMORY_VOLUME], "the pod's volumes")
    for container in (c for c in spec["containers"] if _requests_gpu(c)):
        add_named(
            container.setdefault("volumeMounts", []),
            [SHARED_MEMORY_MOUNT],
            f"container {container['name']}'s mounts",
        )
    wired["spec"] = spec
    return wired


SHARED_MEMORY_VOLUME = {"name": "shared-memory", "emptyDir": {"medium": "Memory"}}
SHARED_MEMORY_MOUNT = {"name": "shared-memory", "mountPath": "/dev/shm"}


FABRIC = GkeFabricSpec(
    fabric=Fabric.TCPX,
    installer_image=lambda cfg: cfg.tcpx_images.installer,
    add_fabric_args=_add_fabric_args,
    image_problems=_image_problems,
    pod_security=(
        "privileged",
        "GPUDirect-TCPX pods run on the host network with the tcpx-daemon sidecar privileged and "
        "the driver's libraries and the daemon's socket as host paths (the GKE GPUDirect-TCPX "
        "guide); Baseline forbids each",
    ),
    wire_pod=_wire_pod,
    runtime_security={
        "host_network_reason": TCPX_HOST_NETWORK,
        "privileged_reason": TCPX_PRIVILEGED,
    },
)
