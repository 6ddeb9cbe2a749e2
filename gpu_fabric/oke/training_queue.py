"""OKE's training queue: one ResourceFlavor for the GPU shape's nodes, whose GPUs and RDMA rails
the DRA drivers allocate, so the queue counts the devices of each claimed DeviceClass."""

from __future__ import annotations

from ..catalog import catalog
from ..health.from_stack import with_pre_job_check
from ..nvidia import GPU_DEVICE_CLASS, GPU_RESOURCE
from ..pod_spec import add_named
from ..storage.mounts import with_training_volumes
from ..workloads.queues import runtime_image, training_queue
from ..workloads.runtime import node_template
from ..workloads.settings import QueuePool, TrainingQueueSettings, TrainingRuntimeSettings
from .checks import POD_SECURITY
from .claims.component import INSTANCE_TYPE_LABEL, RAIL_DEVICE_CLASS, claim_template, with_dra_claim
from .claims.nccl_jobs import SHM_MOUNT, SHM_VOLUME
from .claims.plan import RUNTIME_CLAIM, Claim, plan_claim
from .config import OkeDranetConfig

RAIL_RESOURCE = "dra.net/rails"
"""What the queue counts for the rails claims take from DeviceClass `dra.net`."""
DEVICE_CLASS_MAPPINGS = {GPU_RESOURCE: [GPU_DEVICE_CLASS], RAIL_RESOURCE: [RAIL_DEVICE_CLASS]}
"""Each DeviceClass the claims name, as the resource the queue counts (Kueue refuses a job whose
claims name an unmapped one). GPUs count as `nvidia.com/gpu`, as on the other platforms."""


def queue_pools(shape_name: str, node_count: int) -> list[QueuePool]:
    """The GPU nodes as one flavor: by their shape label, tolerating the GPU taint, with every
    node's GPUs and rails as quota."""
    shape = catalog().oci_shapes[shape_name]
    return [
        {
            "name": shape_name.lower().replace(".", "-"),  # BM.GPU.B4.8: bm-gpu-b4-8
            "node_labels": {INSTANCE_TYPE_LABEL: shape_name},
            "tolerations": [{"key": GPU_RESOURCE, "effect": "NoSchedule"}],
            "quota": {
                GPU_RESOURCE: node_count * shape.gpu_count,
                RAIL_RESOURCE: node_count * shape.rail_count,
            },
        }
    ]


def training_runtime(cfg: OkeDranetConfig) -> TrainingRuntimeSettings:
    """The RDMA runtime: a pod per node claiming all its GPUs and rails, aligned per PCIe root
    (the write-up's `aligned-8gpu-16rails`), with NCCL's RoCE settings for the shape and the
    write-up's shared memory. Its claim
    template is made in the training namespace with it (a pod's claims resolve there)."""
    shape_name = cfg.gpu_nodes.shape
    shape = catalog().oci_shapes[shape_name]
    plan = plan_claim(Claim(RUNTIME_CLAIM, shape.gpu_count, shape.rail_count), shape, shape_name)
    pod = with_dra_claim(node_template(runtime_image(cfg.queues)), plan.name, shape_name)
    add_named(pod["spec"].setdefault("volumes", []), [SHM_VOLUME], "the pod's volumes")
    node = pod["spec"]["containers"][0]
    add_named(node.setdefault("volumeMounts", []), [SHM_MOUNT], "the node container's mounts")
    # The DRA driver's CDI spec puts the driver's tools in a container its claim gives GPUs to
    # (UNVERIFIED on OKE's images; without nvidia-smi the check lets the job start).
    pod = with_pre_job_check(pod, cfg.health, shape.gpu_count, "nvidia-smi")
    pod = with_training_volumes(pod, cfg.storage)
    return {
        "name": catalog().workloads.rdma_runtime,
        "pod_template": pod,
        "namespaced_objects": [claim_template(plan, "")],
        "claimed_gpus": shape.gpu_count,
    }


def training_queue_of(cfg: OkeDranetConfig) -> TrainingQueueSettings | None:
    """The stack's training queue (None: `queues.enabled: false`)."""
    # No Topology by default: Kueue 0.19 places a Topology-aware job by its containers' requests
    # and does not count DRA devices (kueue site/content/en/docs/concepts/
    # dynamic_resource_allocation.md, limitations: "No DRA + TAS"), so two pods that each claim a
    # node's 8 GPUs could be given one host. The nodes carry the RDMA locality labels for a stack
    # that sets `queues.topologyLevels` to them (catalog `oke.topology_levels`).
    return training_queue(
        cfg.queues,
        None,
        queue_pools(cfg.gpu_nodes.shape, cfg.gpu_nodes.count),
        POD_SECURITY,
        DEVICE_CLASS_MAPPINGS,
        training_runtime(cfg),
    )
