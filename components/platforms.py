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
from .oke.network import Nsg
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
    fabric = oke.GpuCluster(cfg.oke.name, cfg)
    return {
        "clusterName": fabric.cluster.cluster.name,
        "clusterId": fabric.cluster.cluster.id,
        "apiServerHost": fabric.cluster.api_server_host,
        "kubeconfig": fabric.cluster.kubeconfig,
        "vcnId": fabric.network.vcn_id,
        # Name it on LoadBalancer Services (`oci.oraclecloud.com/oci-network-security-groups`):
        # the workers admit node-port traffic from this NSG only.
        "loadBalancerNsgId": fabric.network.nsg_ids[Nsg.LOAD_BALANCERS],
        "computeClusterId": fabric.rdma_nodes.compute_cluster.id,
        "gpuNodes": [i.display_name for i in fabric.rdma_nodes.instances],
        "claimTemplates": [c.name for c in cfg.claims],
    }


def _ack(cfg: AckLingjunConfig) -> dict[str, pulumi.Input]:
    fabric = ack.GpuCluster(cfg.ack.name, cfg)
    lingjun = fabric.lingjun
    return {
        "clusterName": fabric.cluster.cluster.name,
        "clusterId": fabric.cluster.cluster.id,
        "kubeconfig": fabric.cluster.kubeconfig,
        "vpcId": fabric.network.vpc_id,
        "lingjunNodePoolId": lingjun.pool.id,
        "rdmaAddon": pulumi.Output.concat(lingjun.addon.name, " ", lingjun.addon.version),
        "rdmaNonHostNetwork": cfg.rdma.non_host_network,
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
