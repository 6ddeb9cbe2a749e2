"""GPUDirect-TCPXO on GKE A3 Mega: the pod wiring and the NRI device injector DaemonSet.

Sources: container-engine-accelerators `gpudirect-tcpxo/nccl-test-latest.yaml` (the pod-network
pattern: NRI device annotation, interfaces annotation, tcpxo-daemon, aperture devices) and
`gpudirect-tcpxo/best-practice.md` (the daemon as a native sidecar with a startup probe), both at
commit 992db812 (the test pods are kept in upstream/nccl-test-tcpxo.yaml).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from .. import yaml_files
from ..pod_spec import add_items, add_named, container_named, set_fields
from ..workload_security import waive_upstream
from .gib import DEFAULT_INTERFACE, INTERFACES, interfaces_annotation
from .nccl_installer import RETAINED, SKIP_AWAIT, UPSTREAM, awaited_spec

GPU_RESOURCE = "nvidia.com/gpu"
DAEMON = "tcpxo-daemon"
LIBRARY_DIR = "/usr/local/nvidia/lib64"
APERTURE_DEVICES = "/dev/aperture_devices"
NRI_DEVICE_INJECTOR = UPSTREAM / "nri-device-injector.yaml"
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
    {"name": "nvidia", "hostPath": {"path": "/home/kubernetes/bin/nvidia/lib64"}},
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
    # best-practice.md: `source ${NCCL_LIB_DIR}/nccl-env-profile.sh` in the workload's command.
    {"name": "NCCL_LIB_DIR", "value": LIBRARY_DIR},
]
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
    on `container` (default: the first) all `gpus` GPUs, the mounts and the environment. The pod
    stays on the pod network (upstream's `nccl-test-latest.yaml`); `hostNetwork: true` is refused.
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


# --- NRI device injector -----------------------------------------------------------------------


def device_injector_manifest(image: str) -> dict:
    """Upstream's NRI device injector DaemonSet, verbatim but for its image (from the catalog)
    and its checkov waivers (`waive_upstream`, annotations only)."""
    manifest = yaml_files.read(NRI_DEVICE_INJECTOR)
    (injector,) = manifest["spec"]["template"]["spec"]["containers"]
    injector["image"] = image
    return waive_upstream(manifest)


@dataclass(frozen=True)
class NriDeviceInjectorArgs:
    image: str
    await_rollout: bool = False
    """As the installer's: not awaited by default (it targets GPU nodes that may not exist yet)."""
    wait_for: pulumi.Input[list[str]] | None = None
    """With await_rollout: the GPU node pools' names, as the installer's `wait_for`."""


class NriDeviceInjector(pulumi.ComponentResource):
    """The NRI device injector DaemonSet, which gives the tcpxo-daemon its GPU devices.

    Privileged with hostNetwork/hostPID, as upstream requires (it mounts /dev and the NRI socket).
    """

    def __init__(
        self, name: str, args: NriDeviceInjectorArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:gke:NriDeviceInjector", name, None, opts)
        manifest = device_injector_manifest(args.image)
        metadata = manifest["metadata"]
        if not args.await_rollout:
            metadata = {**metadata, "annotations": {**metadata["annotations"], SKIP_AWAIT: "true"}}
        k8s.apps.v1.DaemonSet(
            name,
            metadata=metadata,
            spec=awaited_spec(manifest["spec"], args.await_rollout, args.wait_for),
            # Retained like the installer (issue 14, item 5): the external owner's bundle applies
            # the same DaemonSet, and the TCPXO daemon gets no GPUs while it is missing.
            opts=pulumi.ResourceOptions.merge(RETAINED, pulumi.ResourceOptions(parent=self)),
        )
        self.register_outputs({})
