"""A GKE GPU cluster with its GPU fabric in one stack: the cloud layer, then the fabric layer.

The machine's catalog entry decides the NICs, VPCs and Network objects; its fabric's module
(`fabrics.fabric_of`) decides the installer and what else goes in the cluster. `cloud_args` and
`fabric_args` turn a validated stack config into each layer's typed args; a split deployment uses
them one per stack.
"""

from __future__ import annotations

from typing import Any

import pulumi_kubernetes as k8s

from ..layers import LayeredCluster
from .cloud import GkeCloud
from .cloud_args import GkeCloudArgs, GkeGpuNetwork
from .config import (
    GkeA4xConfig,
    GkeStackConfig,
    InstallerOwner,
)
from .fabric import GkeFabric
from .fabric_args import GkeFabricArgs
from .fabrics import fabric_of
from .pool_args import pool_args
from .training_queue import training_queue_of


def _named(pattern: str, prefix: str, nic: int) -> str:
    """Fill a catalog name pattern for the NIC at 0-based index `nic` of its group."""
    return pattern.format(prefix=prefix, n=nic + 1, i=nic)


def gpu_networks(cfg: GkeStackConfig) -> list[GkeGpuNetwork]:
    """The VPCs of every NIC group, named by the catalog's patterns, in NIC order."""
    prefix, vpcs = cfg.name_prefix, []
    for plan in cfg.nic_groups:
        group, names = plan.group, plan.group.names
        nics = list(range(group.count))
        for vpc_nics in [[nic] for nic in nics] if group.vpc_per_nic else [nics]:
            first = vpc_nics[0]
            vpc: GkeGpuNetwork = {
                "network_name": _named(names.network, prefix, first),
                "subnets": [
                    {"name": _named(names.subnet, prefix, nic), "cidr": plan.subnets[nic]}
                    for nic in vpc_nics
                ],
                "mtu": plan.mtu,
            }
            if group.network_profile:
                vpc["network_profile"] = (
                    f"projects/{cfg.project}/global/networkProfiles/"
                    f"{cfg.pool.zone}-{group.network_profile}"
                )
            if names.firewall:
                vpc["firewall_name"] = _named(names.firewall, prefix, first)
            if plan.firewall_source_ranges is not None:
                vpc["firewall_source_ranges"] = plan.firewall_source_ranges
            vpcs.append(vpc)
    return vpcs


def cloud_args(cfg: GkeStackConfig) -> GkeCloudArgs:
    """The cloud layer's args of a validated stack config."""
    gke, primary = cfg.gke, cfg.network.primary
    args: GkeCloudArgs = {
        "cluster_name": gke.name,
        "project": cfg.project,
        "region": cfg.region,
        "version": gke.version,
        "gpu_networks": gpu_networks(cfg),
        "gpu_pools": [pool_args(cfg, pool) for pool in cfg.pools],
        "deletion_protection": gke.deletion_protection,
        "private_nodes": gke.private_nodes,
        "system_machine_type": gke.system_pool.machine_type,
        "system_node_count": gke.system_pool.node_count,
        "node_account_roles": gke.node_account_roles,
        "release_channel": cfg.release_channel.value,
    }
    if primary.existing is not None:
        e = primary.existing
        args["existing_network"] = {
            "network": e.network,
            "subnetwork": e.subnetwork,
            "pods_range_name": e.pods_range_name,
            "services_range_name": e.services_range_name,
        }
    else:
        args["primary_network"] = {
            "subnet_cidr": primary.subnet_cidr,
            "pods_cidr": primary.pods_cidr,
            "services_cidr": primary.services_cidr,
            "cloud_nat": primary.cloud_nat,
        }
        mtu = primary.mtu if primary.mtu is not None else cfg.machine.primary_mtu
        if mtu is not None:
            args["primary_network"]["mtu"] = mtu
    if gke.master_authorized_networks is not None:
        args["master_authorized_networks"] = [
            {"cidr_block": n.cidr_block, "display_name": n.display_name}
            for n in gke.master_authorized_networks
        ]
    if gke.max_pods_per_node is not None:
        args["max_pods_per_node"] = gke.max_pods_per_node
    return args


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
    if isinstance(cfg, GkeA4xConfig):
        # a4x nodes cannot attach Persistent Disk; PVCs need a Hyperdisk class (NVIDIA AICR's A4X
        # networking guide).
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

    CLOUD, FABRIC = GkeCloud, GkeFabric
    cloud_args = staticmethod(cloud_args)
    fabric_args = staticmethod(fabric_args)
