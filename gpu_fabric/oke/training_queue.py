"""OKE's training queue: one ResourceFlavor for the GPU shape's nodes, whose GPUs and RDMA rails
the DRA drivers allocate, so the queue counts the devices of each claimed DeviceClass."""

from __future__ import annotations

from ..catalog import catalog
from ..nvidia import GPU_DEVICE_CLASS, GPU_RESOURCE
from ..workloads.queues import QueuePool, TrainingQueueSettings, training_queue
from .claims import INSTANCE_TYPE_LABEL, RAIL_DEVICE_CLASS
from .config import OkeDranetConfig

RAIL_RESOURCE = "dra.net/rails"
"""What the queue counts for the rails claims take from DeviceClass `dra.net`."""
DEVICE_CLASS_MAPPINGS = {GPU_RESOURCE: [GPU_DEVICE_CLASS], RAIL_RESOURCE: [RAIL_DEVICE_CLASS]}
"""Each DeviceClass the claims name, as the resource the queue counts (Kueue refuses a job whose
claims name an unmapped one). GPUs count as `nvidia.com/gpu`, as on the other platforms."""
POD_SECURITY = (
    "baseline",
    "the GPUs and RDMA rails come through DRA claims, so a training pod needs no host path, "
    "host network or added capability; the DRANET-on-OKE write-up ran every test pod under "
    "Baseline",
)


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
    )
