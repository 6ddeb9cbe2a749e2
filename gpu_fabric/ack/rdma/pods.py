"""RDMA on Lingjun nodes for a user's pod template, and the benchmark Job of Alibaba's Lingjun
RDMA guide.

`with_lingjun_rdma` adds what the guide's Job has: `rdma/hca: 1` ("a request of 1 is enough"),
`IPC_LOCK` and `SYS_RESOURCE`, a memory-backed `/dev/shm`, and `hostNetwork: true` unless the
add-on's non-hostNetwork RDMA is on. For a user's pod template it tolerates just the Lingjun taint
(unless a toleration already covers it) and selects the Lingjun label, both ACK defaults (Alibaba,
"Overview of Lingjun node pools"), so that the pod lands on a Lingjun node and nowhere else. The
guide's own Job (`benchmark_job`) keeps the guide's `tolerations: [{operator: Exists}]` (Alibaba's
"Use RDMA networks for pods on Lingjun nodes": the Job's last lines, copied in
tests/fixtures/seeds/ack-lingjun/hps-benchmark-job.yaml) and adds only the Lingjun node selector.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from ...catalog import catalog
from ...nvidia import GPU_RESOURCE
from ...pod_spec import add_items, add_named, container_named, set_fields
from ...workload_security import secure_workload

SHM_PATH = "/dev/shm"
CAPABILITIES = ["IPC_LOCK", "SYS_RESOURCE"]
BENCHMARK_NAME = "hps-benchmark"
BENCHMARK_COMMAND = ["sh", "-c", "python /workspace/wdl_8gpu_outbrain.py\n"]
BENCHMARK_GPUS = 8  # Alibaba's Lingjun RDMA guide: `nvidia.com/gpu: 8`, a whole Lingjun node
# The guide's Job tolerates every taint, as Alibaba writes it (the fixture's last lines:
# `tolerations: [{operator: Exists}]`); the node selector still keeps it on Lingjun nodes.
BENCHMARK_TOLERATIONS = [{"operator": "Exists"}]
HPS_MEMORY = (
    "no memory limit: HPS holds its embedding tables in host memory, and the Job takes a whole "
    "Lingjun node, whose memory differs by machine type"
)
BENCHMARK_NAMESPACE = "gpu-fabric-benchmark"
"""The Job's own namespace (the guide's is `default`, which docs/security.md keeps free)."""
LINGJUN_HOST_NETWORK = (
    "RDMA on Lingjun nodes uses the host network unless the add-on's non-hostNetwork RDMA is on "
    "(Alibaba, Use the RDMA network in pods on Lingjun nodes)"
)


def lingjun_toleration() -> dict:
    taint = catalog().ack.lingjun_nodes.taint
    return {"key": taint["key"], "operator": "Exists", "effect": taint["effect"]}


def _tolerates(tolerations: list[dict], wanted: dict) -> bool:
    """True if a toleration of the list already covers the Lingjun taint (e.g. the guide's
    blanket `operator: Exists`)."""
    for t in tolerations:
        if t.get("operator") == "Exists" and t.get("key") in (None, wanted["key"]):
            if t.get("effect") in (None, "", wanted["effect"]):
                return True
    return False


def _shm_volume(spec: dict, target: dict, shm_size: str | None) -> None:
    mounts = target.setdefault("volumeMounts", [])
    mounted = next((m for m in mounts if m.get("mountPath") == SHM_PATH), None)
    volumes = spec.setdefault("volumes", [])
    if mounted is not None:
        volume: dict = next((v for v in volumes if v["name"] == mounted["name"]), {})
        if (volume.get("emptyDir") or {}).get("medium") != "Memory":
            raise ValueError(
                f"container {target['name']} mounts {SHM_PATH} from {mounted['name']!r}, which is "
                "not a memory-backed emptyDir"
            )
        return
    empty_dir = {"medium": "Memory", **({"sizeLimit": shm_size} if shm_size else {})}
    add_named(volumes, [{"name": "shm", "emptyDir": empty_dir}], "the pod's volumes")
    add_named(
        mounts, [{"name": "shm", "mountPath": SHM_PATH}], f"container {target['name']}'s mounts"
    )


def with_lingjun_rdma(
    pod_template: dict,
    non_host_network: bool = False,
    container: str | None = None,
    shm_size: str | None = None,
) -> dict:
    """Return a copy of a pod template (`{metadata, spec}`) that uses RDMA on a Lingjun node.

    `container` (default: the first) gets `rdma/hca: 1` in its limits, IPC_LOCK and SYS_RESOURCE,
    and `/dev/shm` from a memory emptyDir (`shm_size` its limit). The pod gets `hostNetwork: true`
    unless `non_host_network` (the add-on's switch, on an IPv6 computing network), the Lingjun
    toleration and node selector. Raises ValueError rather than overwrite something the template
    already sets differently.
    """
    template = copy.deepcopy(pod_template)
    spec = template.setdefault("spec", {})
    target = container_named(spec, container)
    resource = catalog().ack.rdma_device_plugin.resource
    limits = target.setdefault("resources", {}).setdefault("limits", {})
    if limits.get(resource) != "1":  # the same quantity written as a string is no conflict
        set_fields(limits, {resource: 1}, f"container {target['name']}'s limit")
    capabilities = target.setdefault("securityContext", {}).setdefault("capabilities", {})
    add_items(capabilities.setdefault("add", []), CAPABILITIES)
    _shm_volume(spec, target, shm_size)
    if not non_host_network:
        set_fields(spec, {"hostNetwork": True}, "the pod's")
    set_fields(
        spec.setdefault("nodeSelector", {}),
        catalog().ack.lingjun_nodes.worker_label,
        "node selector",
    )
    tolerations = spec.setdefault("tolerations", [])
    if not _tolerates(tolerations, lingjun_toleration()):
        add_items(tolerations, [lingjun_toleration()])
    return template


def benchmark_job(
    image: str, gpus: int, non_host_network: bool, labels: dict[str, str] | None = None
) -> dict:
    """The `hps-benchmark` Job of Alibaba's Lingjun RDMA guide, its RDMA wiring from
    `with_lingjun_rdma`, in a namespace
    of its own and with the secure defaults (`secure_workload`); `labels` on its pods."""
    template = {
        **({"metadata": {"labels": labels}} if labels else {}),
        "spec": {
            "restartPolicy": "Never",
            "containers": [
                {
                    "name": BENCHMARK_NAME,
                    "image": image,
                    "command": BENCHMARK_COMMAND,
                    "workingDir": "/root",
                    "resources": {"limits": {GPU_RESOURCE: gpus}},
                }
            ],
            "tolerations": copy.deepcopy(BENCHMARK_TOLERATIONS),
        },
    }
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": BENCHMARK_NAME,
            "namespace": BENCHMARK_NAMESPACE,
            # A benchmark finishes on its own time; `pulumi up` does not wait for it to complete.
            "annotations": {"pulumi.com/skipAwait": "true"},
        },
        "spec": {
            "parallelism": 1,
            "template": with_lingjun_rdma(template, non_host_network, shm_size="8Gi"),
        },
    }
    return secure_workload(
        job,
        {BENCHMARK_NAME: "whole-node"},
        host_network=LINGJUN_HOST_NETWORK,
        reasons_for={"CKV_K8S_13": HPS_MEMORY},
    )


@dataclass(frozen=True)
class BenchmarkArgs:
    image: str
    """Image of the benchmark Job."""
    gpus: int
    """GPUs (and RDMA devices) the Job's pod claims."""
    non_host_network: bool
    """Run the pod outside the host network (non-hostNetwork RDMA)."""


class Benchmark(pulumi.ComponentResource):
    """The Lingjun RDMA guide's benchmark Job, in the cluster."""

    job: k8s.batch.v1.Job

    def __init__(self, name: str, args: BenchmarkArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-fabric:ack:Benchmark", name, None, opts)
        manifest = benchmark_job(args.image, args.gpus, args.non_host_network)
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": manifest["metadata"]["namespace"]},
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.job = k8s.batch.v1.Job(
            f"{name}-job",
            metadata=manifest["metadata"],
            spec=manifest["spec"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace]),
        )
        self.register_outputs({})
