"""ACK Pro with a Lingjun node pool and RDMA (Alibaba's Lingjun RDMA guide) in one stack: the
cloud layer, then the fabric layer. `cloud_args` and `fabric_args` turn a validated stack config
into each layer's args.
"""

from __future__ import annotations

from typing import Any

import pulumi_kubernetes as k8s

from ..layers import LayeredCluster
from .cloud import AckCloud
from .cloud_args import cloud_args
from .config import AckLingjunConfig
from .cpfs.volumes import training_volumes
from .fabric import AckFabric, AckFabricArgs
from .health import health_of
from .training_queue import training_queue_of


def fabric_args(
    cfg: AckLingjunConfig, provider: k8s.Provider, cloud: dict[str, Any]
) -> AckFabricArgs:
    """The fabric layer's args: the stack config's own, and the cloud layer's outputs (`cloud`:
    kubeconfig, cluster_id, lingjun_node_pool_id; Outputs or values) for the Lingjun node wait."""
    args: AckFabricArgs = {
        "kubernetes_provider": provider,
        "non_host_network": cfg.rdma.non_host_network,
    }
    if cfg.lingjun.node_count:
        args["lingjun_nodes"] = {
            "count": cfg.lingjun.node_count,
            "group_id": cfg.lingjun.group_id,
            "node_pool_id": cloud["lingjun_node_pool_id"],
            "cluster_id": cloud["cluster_id"],
            "kubeconfig": cloud["kubeconfig"],
            "rdma_plugin": f"ack-rdma-device-plugin {cfg.rdma_addon_version} "
            f"non_host_network={cfg.rdma.non_host_network}",
        }
        if cfg.node_wait_timeout is not None:
            args["lingjun_nodes"]["timeout"] = cfg.node_wait_timeout
    if cfg.benchmark_job:
        args["benchmark_image"] = cfg.images.benchmark or ""
    health = health_of(cfg)
    if health is not None:
        args["health"] = health
    queue = training_queue_of(cfg)
    if queue is not None:
        args["training_queue"] = queue
        args["kubeconfig"] = cloud["kubeconfig"]
        args["cluster_id"] = cloud["cluster_id"]
    volumes = training_volumes(cfg.storage)
    if volumes:
        args["training_volumes"] = volumes
    return args


class GpuCluster(LayeredCluster):
    """ACK's layers in one stack: `AckCloud`, then `AckFabric` on the new cluster's provider."""

    TOKEN = "gpu-fabric:ack:GpuCluster"
    # The Lingjun node wait takes the pool as `lingjun_nodes.node_pool_id`.
    RENAMED_NEEDS = {"node_pool_id": "lingjun_node_pool_id"}

    CLOUD, FABRIC = AckCloud, AckFabric
    cloud_args = staticmethod(cloud_args)
    fabric_args = staticmethod(fabric_args)
