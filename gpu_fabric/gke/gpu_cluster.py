"""A GKE GPU cluster with its GPU fabric in one stack: the cloud layer, then the fabric layer.

The machine's catalog entry decides the NICs, VPCs and Network objects; its fabric's module
(`fabrics.by_name.fabric_of`) decides the installer and what else goes in the cluster.
`from_stack.cloud_args` and `fabric_args` (below) turn a validated stack config into each layer's
typed args; a split deployment uses them one per stack.
"""

from __future__ import annotations

from typing import Any

import pulumi_kubernetes as k8s

from ..layers import LayeredCluster
from .cloud import GkeCloud
from .config import GkeStackConfig, InstallerOwner
from .fabric import GkeFabric
from .fabric_args import GkeFabricArgs
from .fabrics.by_name import fabric_of
from .from_stack import cloud_args
from .health import health_of
from .training_queue import training_queue_of
from .training_volumes import training_volumes


def fabric_args(
    cfg: GkeStackConfig, provider: k8s.Provider, cloud: dict[str, Any]
) -> GkeFabricArgs:
    """The fabric layer's args: the stack config's own, and the cloud layer's outputs (`cloud`:
    kubeconfig, cluster_id, nic_networks, gpu_subnets, gpu_node_pools; Outputs or values)."""
    args: GkeFabricArgs = {
        "kubernetes_provider": provider,
        "kubeconfig": cloud["kubeconfig"],
        "cluster_id": cloud["cluster_id"],
        "machine_type": cfg.pool.machine_type,
        "network_object_names": cfg.network_object_names,
        "nic_networks": cloud["nic_networks"],
        "gpu_subnets": cloud["gpu_subnets"],
        "gpu_node_pools": cloud["gpu_node_pools"],
        "gpu_node_pool_instance_groups": cloud["gpu_node_pool_instance_groups"],
        "gpu_node_count": sum(pool.node_count for pool in cfg.pools),
    }
    if cfg.node_wait_timeout is not None:
        args["node_wait_timeout"] = cfg.node_wait_timeout
    fabric = fabric_of(cfg.machine)
    owner = cfg.installer.owner
    if owner is not InstallerOwner.EXTERNAL:
        args["installer"] = {
            "image": fabric.installer_image(cfg),
            "pause_image": cfg.pause_image,
            "await_rollout": cfg.installer.await_rollout,
            "retain_on_delete": owner is InstallerOwner.HANDOVER,
        }
    fabric.add_fabric_args(cfg, args)
    queue = training_queue_of(cfg)
    if queue is not None:
        args["training_queue"] = queue
    health = health_of(cfg)
    if health is not None:
        args["health"] = health
    file_server_ips = cloud.get("file_server_ips")
    places = (cfg.pools[0].zone, cfg.region)
    host_network = "host_network_reason" in fabric.runtime_security
    volumes = training_volumes(
        cfg.storage, cfg.project, cfg.gke.name, places, file_server_ips, host_network
    )
    if volumes:
        args["training_volumes"] = volumes
    if not cfg.machine.persistent_disk:
        # Nodes that attach no Persistent Disk (A4X) need a Hyperdisk class for their volumes
        # (NVIDIA AICR's A4X networking guide, "Storage Prerequisites").
        storage = cfg.hyperdisk_storage_class
        args["hyperdisk_storage_class"] = {"name": storage.name, "is_default": storage.is_default}
    return args


class GpuCluster(LayeredCluster):
    """GKE's layers in one stack: `GkeCloud`, then `GkeFabric` on the new cluster's provider."""

    TOKEN = "gpu-fabric:gke:GpuCluster"
    # `clusterEndpoint`: the stack output's name from before the layers (a deployed stack's
    # consumers read it); the stack does not export the installer's name.
    RENAMED_OUTPUTS = {"endpoint": "clusterEndpoint"}
    UNEXPORTED_OUTPUTS = ("installer",)
    OPTIONAL_NEEDS = ("file_server_ips",)

    CLOUD, FABRIC = GkeCloud, GkeFabric
    cloud_args = staticmethod(cloud_args)
    fabric_args = staticmethod(fabric_args)
