"""OKE with DRANET and DRA GPUs (the DRANET-on-OKE write-up) in one stack: the cloud layer, then
the fabric layer.

`cloud_args` and `fabric_args` turn a validated stack config into each layer's typed args; a split
deployment uses them one per stack.
"""

from __future__ import annotations

from typing import Any

import pulumi_kubernetes as k8s

from ..layers import LayeredCluster
from .cloud import OkeCloud, OkeCloudArgs
from .config import Cni, OkeDranetConfig
from .fabric import OkeClaim, OkeFabric, OkeFabricArgs
from .training_queue import training_queue_of


def cloud_args(cfg: OkeDranetConfig) -> OkeCloudArgs:
    """The cloud layer's args of a validated stack config."""
    net, oke, nodes = cfg.network, cfg.oke, cfg.gpu_nodes
    vcn_native = oke.cni is Cni.VCN_NATIVE
    args: OkeCloudArgs = {
        "tenancy_id": cfg.tenancy_ocid,
        "compartment_id": cfg.compartment_id,
        "cluster_name": oke.name,
        "kubernetes_version": oke.kubernetes_version,
        "api_allowed_cidrs": list(net.api_allowed_cidrs),
        "ssh_allowed_cidrs": list(net.ssh_allowed_cidrs),
        "cni": oke.cni.value,
        "services_cidr": oke.services_cidr,
        "public_endpoint": oke.public_endpoint,
        "deletion_protection": oke.deletion_protection,
        "max_pods_per_node": oke.max_pods_per_node,
        "system_pool": {
            "shape": oke.system_pool.shape,
            "ocpus": oke.system_pool.ocpus,
            "memory_gbs": oke.system_pool.memory_gbs,
            "node_count": oke.system_pool.node_count,
            "image_id": oke.system_pool.image_id,
        },
        "gpu_nodes": {
            "shape": nodes.shape,
            "count": nodes.count,
            "availability_domain": nodes.availability_domain,
            "image_id": nodes.image_id,
            "boot_volume_size_gbs": nodes.boot_volume_size_gbs,
            "run_command_plugin": nodes.agent_plugins.run_command,
            "rdma_gpu_monitoring_plugin": nodes.agent_plugins.rdma_gpu_monitoring,
        },
    }
    if oke.effective_pods_cidr is not None:
        args["pods_cidr"] = oke.effective_pods_cidr
    if oke.home_region is not None:
        args["home_region"] = oke.home_region
    if nodes.ssh_public_key is not None:
        args["gpu_nodes"]["ssh_public_key"] = nodes.ssh_public_key
    if nodes.join_tag is not None:
        args["gpu_nodes"]["join_tag_namespace"] = nodes.join_tag.namespace
        args["gpu_nodes"]["join_tag_key"] = nodes.join_tag.key
    existing = net.existing
    if existing is not None:
        args["existing_vcn"] = {
            "vcn_id": existing.vcn_id,
            "vcn_cidr": existing.vcn_cidr,
            "api_subnet_id": existing.api_subnet_id,
            "load_balancer_subnet_id": existing.load_balancer_subnet_id,
            "workers_subnet_id": existing.workers_subnet_id,
        }
        if vcn_native and existing.pods_subnet_id is not None:
            args["existing_vcn"]["pods_subnet_id"] = existing.pods_subnet_id
    else:
        args["vcn"] = {
            "vcn_cidr": net.vcn_cidr,
            "api_subnet_cidr": net.api_subnet_cidr,
            "load_balancer_subnet_cidr": net.load_balancer_subnet_cidr,
            "workers_subnet_cidr": net.workers_subnet_cidr,
        }
        if vcn_native and net.pods_subnet_cidr is not None:
            args["vcn"]["pods_subnet_cidr"] = net.pods_subnet_cidr
    return args


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
    queue = training_queue_of(cfg)
    if queue is not None:
        args["training_queue"] = queue
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

    CLOUD, FABRIC = OkeCloud, OkeFabric
    cloud_args = staticmethod(cloud_args)
    fabric_args = staticmethod(fabric_args)
