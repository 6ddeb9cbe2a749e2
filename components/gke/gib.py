"""GPUDirect-RDMA (gIB) on GKE A4X: pod wiring, the Hyperdisk StorageClass, the training runtime.

Seed 003 and NVIDIA AICR's `torch-distributed-rdma` runtime (components/gke/upstream/) are the
source of every field here.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from ..crd_gate import CrdGate, CrdGateArgs
from ..k8s_objects import custom_resource
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
GIB_MOUNTS = [
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


# --- Hyperdisk StorageClass --------------------------------------------------------------------

DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
# GKE Standard's default StorageClass (pd-balanced), which a4x nodes cannot attach (seed 003).
GKE_DEFAULT_STORAGE_CLASS = "standard-rwo"


def hyperdisk_storage_class(name: str, is_default: bool) -> dict:
    """A StorageClass that a4x nodes can use: Hyperdisk Balanced through the PD CSI driver."""
    metadata: dict = {"name": name}
    if is_default:
        metadata["annotations"] = {DEFAULT_CLASS_ANNOTATION: "true"}
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": metadata,
        "provisioner": "pd.csi.storage.gke.io",
        "parameters": {"type": "hyperdisk-balanced"},
        # Zonal disks: bind where the pod lands, not where the claim happens to be made.
        "volumeBindingMode": "WaitForFirstConsumer",
        "allowVolumeExpansion": True,
        "reclaimPolicy": "Delete",
    }


@dataclass(frozen=True)
class HyperdiskStorageArgs:
    name: str
    is_default: bool = False


class HyperdiskStorage(pulumi.ComponentResource):
    """The Hyperdisk Balanced StorageClass; made the cluster default only when asked.

    When it is the default, `standard-rwo` is patched to stop being one, so that exactly one
    StorageClass is the default.
    """

    def __init__(
        self, name: str, args: HyperdiskStorageArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:gke:HyperdiskStorage", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        manifest = hyperdisk_storage_class(args.name, args.is_default)
        k8s.storage.v1.StorageClass(
            name,
            metadata=manifest["metadata"],
            provisioner=manifest["provisioner"],
            parameters=manifest["parameters"],
            volume_binding_mode=manifest["volumeBindingMode"],
            allow_volume_expansion=manifest["allowVolumeExpansion"],
            reclaim_policy=manifest["reclaimPolicy"],
            opts=child,
        )
        if args.is_default:
            k8s.storage.v1.StorageClassPatch(
                f"{name}-not-default-{GKE_DEFAULT_STORAGE_CLASS}",
                metadata={
                    "name": GKE_DEFAULT_STORAGE_CLASS,
                    "annotations": {
                        DEFAULT_CLASS_ANNOTATION: "false",
                        # GKE's addon manager owns this field; take it over explicitly.
                        "pulumi.com/patchForce": "true",
                    },
                },
                opts=child,
            )
        self.register_outputs({})


# --- Kubeflow Trainer runtime ------------------------------------------------------------------

TRAINER_CRDS = ["clustertrainingruntimes.trainer.kubeflow.org"]
TRAINING_RUNTIME = "torch-distributed-rdma"


def training_runtime_manifest(image: str, networks: list[str], gpus: int) -> dict:
    """AICR's `torch-distributed-rdma` ClusterTrainingRuntime, its pod wired by `with_gib`.

    AICR ships it as a Helm hook; here it is a plain object (no hook annotations).
    """
    pod_template = with_gib(
        {"metadata": {}, "spec": {"containers": [{"name": "node", "image": image}]}},
        networks,
        gpus,
    )
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "ClusterTrainingRuntime",
        "metadata": {
            "name": TRAINING_RUNTIME,
            "labels": {"trainer.kubeflow.org/framework": "torch"},
        },
        "spec": {
            "mlPolicy": {"numNodes": 2, "torch": {}},
            "template": {
                "spec": {
                    "replicatedJobs": [
                        {
                            "name": "node",
                            "template": {
                                "metadata": {
                                    "labels": {
                                        "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"
                                    }
                                },
                                "spec": {"template": pod_template},
                            },
                        }
                    ]
                }
            },
        },
    }


@dataclass(frozen=True)
class TrainingRuntimeArgs:
    image: str
    networks: list[str]
    """Network object names in NIC order (gvnic-1, rdma-0..rdma-3)."""
    gpus: int
    kubeconfig: pulumi.Input[str]
    cluster_id: pulumi.Input[str]


class TrainingRuntime(pulumi.ComponentResource):
    """The Kubeflow Trainer runtime `torch-distributed-rdma`, created once Trainer's CRD is served.

    Kubeflow Trainer itself is not installed by gpu-fabric; the gate waits for its CRD.
    """

    def __init__(
        self, name: str, args: TrainingRuntimeArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:gke:TrainingRuntime", name, None, opts)
        gate = CrdGate(
            f"{name}-crds",
            CrdGateArgs(TRAINER_CRDS, args.kubeconfig, args.cluster_id, timeout="30m"),
            pulumi.ResourceOptions(parent=self),
        )
        manifest = training_runtime_manifest(args.image, args.networks, args.gpus)
        custom_resource(name, manifest, pulumi.ResourceOptions(parent=self, depends_on=[gate]))
        self.register_outputs({})
