"""OKE with DRANET and DRA GPUs (the DRANET-on-OKE write-up) in one stack: the cloud layer, then
the fabric layer.

`cloud_args` and `fabric_args` turn a validated stack config into each layer's typed args; a split
deployment uses them one per stack.
"""

from __future__ import annotations

from typing import Any

import pulumi_kubernetes as k8s

from ..layers import LayeredCluster
from .cloud import OkeCloud
from .cloud_args import cloud_args
from .config import OkeDranetConfig
from .fabric import OkeClaim, OkeFabric, OkeFabricArgs
from .health import health_of
from .training_queue import training_queue_of
from .training_volumes import training_volumes


def fabric_args(
    cfg: OkeDranetConfig, provider: k8s.Provider, cloud: dict[str, Any]
) -> OkeFabricArgs:
    """The fabric layer's args: the stack config's own, and the cloud layer's outputs (`cloud`:
    kubeconfig, cluster_id, gpu_nodes; Outputs or values)."""
    args: OkeFabricArgs = {
        "kubernetes_provider": provider,
        "kubeconfig": cloud["kubeconfig"],
        "cluster_id": cloud["cluster_id"],
        "gpu_shape": cfg.gpu_nodes.shape,
        "dranet_version": cfg.dranet_version,
        "dranet_image_tag": cfg.dranet_image_tag,
        "dra_gpu_driver_version": cfg.dra_gpu_driver_version,
        "claims": [
            OkeClaim(name=c.name, gpus=c.gpus, rails=c.rails, aligned=c.aligned)
            | ({"roots": c.roots} if c.roots is not None else {})
            for c in cfg.claims
        ],
    }
    if cfg.dranet.child_cidr is not None:
        args["dranet_child_cidr"] = cfg.dranet.child_cidr
    if "gpu_nodes" in cloud:
        args["gpu_nodes"] = cloud["gpu_nodes"]
        args["gpu_node_ids"] = cloud["gpu_node_ids"]
        args["gpu_node_count"] = cfg.gpu_nodes.count
    if cfg.node_wait_timeout is not None:
        args["node_wait_timeout"] = cfg.node_wait_timeout
    health = health_of(cfg)
    if health is not None:
        args["health"] = health
    queue = training_queue_of(cfg)
    if queue is not None:
        args["training_queue"] = queue
    volumes = training_volumes(cfg.storage, cloud.get("file_system_handles"))
    if volumes:
        args["training_volumes"] = volumes
    if cfg.nccl_claims:
        args["nccl_tests"] = {
            "claims": [c.name for c in cfg.nccl_claims],
            "image": cfg.nccl_tests_image,
            "workers": cfg.gpu_nodes.count,
        }
    return args


class GpuCluster(LayeredCluster):
    """OKE's layers in one stack: `OkeCloud`, then `OkeFabric` on the new cluster's provider."""

    TOKEN = "gpu-fabric:oke:GpuCluster"
    UNEXPORTED_OUTPUTS = ("namespace",)
    OPTIONAL_NEEDS = ("file_system_handles",)

    CLOUD, FABRIC = OkeCloud, OkeFabric
    cloud_args = staticmethod(cloud_args)
    fabric_args = staticmethod(fabric_args)
