"""Which component builds which platform, and what each stack exports."""

from __future__ import annotations

from collections.abc import Callable

import pulumi

from .ack import gpu_cluster as ack
from .ack.config import AckLingjunConfig
from .config_base import Platform
from .gke import gpu_cluster as gke
from .gke.config import GkeStackConfig
from .oke import gpu_cluster as oke
from .oke.config import OkeDranetConfig
from .stack_config import StackConfig


def _gke(cfg: GkeStackConfig) -> dict[str, pulumi.Input]:
    stack = gke.GpuCluster(cfg.gke.name, cfg)
    cloud, fabric = stack.cloud, stack.fabric
    return {
        "clusterName": cloud.cluster_name,
        "clusterId": cloud.cluster_id,
        "clusterEndpoint": cloud.endpoint,
        "kubeconfig": cloud.kubeconfig,
        "nodeServiceAccount": cloud.node_service_account,
        "gpuNodePool": cloud.gpu_node_pools[0],
        "gpuNetworks": cloud.gpu_networks,
        "gpuSubnets": cloud.gpu_subnets,
        "networkObjects": fabric.network_objects,
    }


def _oke(cfg: OkeDranetConfig) -> dict[str, pulumi.Input]:
    stack = oke.GpuCluster(cfg.oke.name, cfg)
    cloud, fabric = stack.cloud, stack.fabric
    return {
        "clusterName": cloud.cluster_name,
        "clusterId": cloud.cluster_id,
        "apiServerHost": cloud.api_server_host,
        "kubeconfig": cloud.kubeconfig,
        "vcnId": cloud.vcn_id,
        "loadBalancerNsgId": cloud.load_balancer_nsg_id,
        "computeClusterId": cloud.compute_cluster_id,
        "gpuNodes": cloud.gpu_nodes,
        "claimTemplates": fabric.claim_templates,
    }


def _ack(cfg: AckLingjunConfig) -> dict[str, pulumi.Input]:
    cloud = ack.GpuCluster(cfg.ack.name, cfg).cloud
    return {
        "clusterName": cloud.cluster_name,
        "clusterId": cloud.cluster_id,
        "kubeconfig": cloud.kubeconfig,
        "vpcId": cloud.vpc_id,
        "lingjunNodePoolId": cloud.lingjun_node_pool_id,
        "rdmaAddon": cloud.rdma_addon,
        "rdmaNonHostNetwork": cloud.rdma_non_host_network,
    }


BUILDERS: dict[Platform, Callable[[StackConfig], dict[str, pulumi.Input]]] = {
    Platform.GKE_A3_HIGH: _gke,
    Platform.GKE_A4X: _gke,
    Platform.GKE_A3_MEGA: _gke,
    Platform.GKE_A3_ULTRA: _gke,
    Platform.GKE_A4: _gke,
    Platform.OKE_DRANET: _oke,
    Platform.ACK_LINGJUN: _ack,
}


def build(cfg: StackConfig) -> dict[str, pulumi.Input]:
    """Register the stack's resources; returns the stack outputs."""
    return BUILDERS[cfg.platform](cfg)
