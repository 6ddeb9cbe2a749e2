"""An ACK Pro cluster with a Lingjun node pool and RDMA (seed 004), as one component wired in order.

What waits for what, and why (everything else runs in parallel):
- the vSwitches wait for the VPC;
- the cluster waits for its node and pod vSwitches; the system pool for the cluster and the node
  vSwitches; the Kubernetes provider for the cluster (its id and credential);
- the RDMA add-on waits for the cluster and the system pool (ACK runs add-on installs on nodes);
- the Lingjun pool waits for the add-on (a documented prerequisite) and, through it, the cluster;
  it does not wait for the system pool's vSwitches or anything in the cluster;
- the optional benchmark Job waits for the provider only: its pods stay Pending until a Lingjun
  node advertises `rdma/hca`, and `pulumi up` does not wait for the Job (skipAwait).
"""

from __future__ import annotations

import pulumi

from ..catalog import catalog
from .cluster import AckCluster, AckClusterArgs, SystemPoolArgs
from .config import AckLingjunConfig
from .lingjun import LingjunPool, LingjunPoolArgs
from .network import AckNetwork, AckNetworkArgs, ExistingAckNetworkArgs, VswitchArgs
from .rdma_pods import BENCHMARK_GPUS, Benchmark, BenchmarkArgs


def _network_args(cfg: AckLingjunConfig) -> AckNetworkArgs | ExistingAckNetworkArgs:
    existing = cfg.network.existing
    if existing is not None:
        return ExistingAckNetworkArgs(
            vpc_id=existing.vpc_id,
            node_vswitch_ids=[v.id for v in existing.node_vswitches],
            pod_vswitch_ids=[v.id for v in existing.pod_vswitches],
        )
    net = cfg.network
    return AckNetworkArgs(
        name=cfg.ack.name,
        vpc_cidr=net.vpc_cidr,
        node_vswitches=[VswitchArgs(v.zone_id, v.cidr) for v in net.node_vswitches],
        pod_vswitches=[VswitchArgs(v.zone_id, v.cidr) for v in net.pod_vswitches],
    )


class GpuCluster(pulumi.ComponentResource):
    """VPC, ACK Pro cluster, system pool, RDMA add-on, Lingjun pool, optional benchmark."""

    network: AckNetwork
    cluster: AckCluster
    lingjun: LingjunPool

    def __init__(
        self, name: str, cfg: AckLingjunConfig, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:ack:GpuCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        ack, facts = cfg.ack, catalog().ack
        self.network = AckNetwork(f"{name}-network", _network_args(cfg), child)
        net = self.network
        self.cluster = AckCluster(
            name,
            AckClusterArgs(
                name=ack.name,
                cluster_spec=facts.cluster_spec,
                kubernetes_version=ack.kubernetes_version,
                vswitch_ids=net.node_vswitch_ids,
                pod_vswitch_ids=net.pod_vswitch_ids,
                service_cidr=ack.service_cidr,
                ip_stack=ack.ip_stack,
                proxy_mode=ack.proxy_mode,
                addons=facts.cluster_addons,
                public_endpoint=ack.public_endpoint,
                deletion_protection=ack.deletion_protection,
                system_pool=SystemPoolArgs(
                    instance_types=ack.system_pool.instance_types,
                    node_count=ack.system_pool.node_count,
                    key_name=ack.system_pool.key_name,
                    system_disk_category=ack.system_pool.system_disk_category,
                    system_disk_size=ack.system_pool.system_disk_size,
                    vswitch_ids=net.node_vswitch_ids,
                ),
            ),
            child,
        )
        self.lingjun = LingjunPool(
            f"{name}-lingjun",
            LingjunPoolArgs(
                cluster_id=self.cluster.cluster.id,
                pool_name=cfg.lingjun.pool_name,
                lingjun_cluster_id=cfg.lingjun.cluster_id,
                lingjun_group_id=cfg.lingjun.group_id,
                addon_name=facts.rdma_device_plugin.name,
                addon_version=cfg.rdma_addon_version,
                non_host_network=cfg.rdma.non_host_network,
                non_host_network_key=cfg.non_host_network_key,
                addon_after=[self.cluster.system_pool],
            ),
            child,
        )
        if cfg.benchmark_job:
            Benchmark(
                f"{name}-benchmark",
                BenchmarkArgs(
                    image=cfg.images.benchmark or "",
                    gpus=BENCHMARK_GPUS,
                    non_host_network=cfg.rdma.non_host_network,
                ),
                pulumi.ResourceOptions(parent=self, providers=[self.cluster.provider]),
            )
        self.register_outputs({})
