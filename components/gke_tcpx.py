"""GKE A3 High with GPUDirect-TCPX (seed 000), as one component wired in dependency order.

What waits for what, and why (everything else runs in parallel):
- the GPU VPCs wait for nothing; the cluster waits for its primary network only;
- the GPU node pool waits for the cluster, the GPU VPCs/subnets it attaches and the node account's
  role grants, never for in-cluster objects;
- the Network objects wait for the CRD gate (the CRDs served) and the VPC/subnet names;
- the TCPX installer waits for the cluster's provider only (a DaemonSet needs no nodes to exist);
- the optional smoke test waits for the node pool, the installer and the Network objects.
"""

from __future__ import annotations

import pulumi

from .config import StackConfig
from .gcp_network import GpuVpc, GpuVpcArgs, PrimaryNetwork, PrimaryNetworkArgs
from .gke_cluster import AuthorizedNetworkArgs, Cluster, ClusterArgs
from .gpu_node_pool import GpuNodePool, GpuNodePoolArgs, NodeNetwork, Reservation
from .network_objects import DeviceNetwork, NetworkObjects, NetworkObjectsArgs
from .tcpx import TcpxInstaller, TcpxInstallerArgs, TcpxSmokeTest, TcpxSmokeTestArgs


def gpu_vpc_args(cfg: StackConfig) -> list[GpuVpcArgs]:
    """Seed names: `<prefix>-net-N`, `<prefix>-sub-N`, `<prefix>-internal-N`, N from 1."""
    prefix = cfg.name_prefix
    return [
        GpuVpcArgs(
            network_name=f"{prefix}-net-{n}",
            subnet_name=f"{prefix}-sub-{n}",
            firewall_name=f"{prefix}-internal-{n}",
            region=cfg.region,
            cidr=cidr,
            mtu=cfg.gpu_mtu,
            source_ranges=cfg.network.gpu_firewall_source_ranges,
        )
        for n, cidr in enumerate(cfg.gpu_subnets, start=1)
    ]


def _primary_network(name: str, cfg: StackConfig, opts: pulumi.ResourceOptions):
    existing = cfg.network.primary.existing
    if existing is not None:
        return existing
    primary = cfg.network.primary
    return PrimaryNetwork(
        f"{name}-primary",
        PrimaryNetworkArgs(
            name=f"{cfg.gke.name}-primary",
            region=cfg.region,
            subnet_cidr=primary.subnet_cidr,
            # Seed 000: `CLUSTER_NAME-pods` and `CLUSTER_NAME-services`.
            pods_range_name=f"{cfg.gke.name}-pods",
            pods_cidr=primary.pods_cidr,
            services_range_name=f"{cfg.gke.name}-services",
            services_cidr=primary.services_cidr,
            cloud_nat=primary.cloud_nat,
        ),
        opts,
    )


class TcpxCluster(pulumi.ComponentResource):
    """GPU VPCs, a multi-networking cluster, an A3 node pool, Network objects and the installer."""

    cluster: Cluster
    gpu_vpcs: list[GpuVpc]
    node_pool: GpuNodePool
    network_objects: NetworkObjects
    installer: TcpxInstaller

    def __init__(self, name: str, cfg: StackConfig, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-fabric:gke:TcpxCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        machine = cfg.machine

        self.gpu_vpcs = [
            GpuVpc(f"{name}-gpu-{n}", args, child)
            for n, args in enumerate(gpu_vpc_args(cfg), start=1)
        ]
        primary = _primary_network(name, cfg, child)

        self.cluster = Cluster(
            name,
            ClusterArgs(
                name=cfg.gke.name,
                project=cfg.project,
                location=cfg.region,
                version=cfg.gke.version,
                network=primary.network,
                subnetwork=primary.subnetwork,
                pods_range_name=primary.pods_range_name,
                services_range_name=primary.services_range_name,
                deletion_protection=cfg.gke.deletion_protection,
                private_nodes=cfg.gke.private_nodes,
                master_authorized_networks=(
                    [
                        AuthorizedNetworkArgs(n.cidr_block, n.display_name)
                        for n in cfg.gke.master_authorized_networks
                    ]
                    if cfg.gke.master_authorized_networks is not None
                    else None
                ),
                system_machine_type=cfg.gke.system_pool.machine_type,
                system_node_count=cfg.gke.system_pool.node_count,
            ),
            child,
        )

        pool = cfg.gpu_pool
        self.node_pool = GpuNodePool(
            f"{name}-{pool.name}",
            GpuNodePoolArgs(
                name=pool.name,
                cluster_id=self.cluster.cluster.id,
                location=cfg.region,
                region=cfg.region,
                zone=pool.zone,
                version=cfg.gke.version,
                machine_type=pool.machine_type,
                accelerator_type=machine.accelerator.type,
                accelerator_count=machine.accelerator.count,
                gpu_driver_version=pool.gpu_driver_version.value,
                node_count=pool.node_count,
                service_account=self.cluster.node_service_account,
                node_networks=[NodeNetwork(v.network_name, v.subnet_name) for v in self.gpu_vpcs],
                local_ssd_count=machine.local_ssd_count if pool.local_ssd else 0,
                placement_policy_name=(
                    f"{cfg.gke.name}-{pool.name}-compact"[:63].rstrip("-")
                    if pool.compact_placement
                    else None
                ),
                reservation=(
                    Reservation(pool.reservation.name, pool.reservation.project)
                    if pool.reservation
                    else None
                ),
                boot_disk_type=pool.boot_disk.type,
                boot_disk_size_gb=pool.boot_disk.size_gb,
                depends_on=list(self.cluster.node_account_grants),
            ),
            child,
        )

        on_cluster = pulumi.ResourceOptions(parent=self, providers=[self.cluster.provider])
        nics = machine.gpu_nics
        self.network_objects = NetworkObjects(
            f"{name}-networks",
            NetworkObjectsArgs(
                networks=[
                    DeviceNetwork(object_name, vpc.network_name, vpc.subnet_name, nics.device_mode.value)
                    for object_name, vpc in zip(nics.network_object_names, self.gpu_vpcs)
                ],
                kubeconfig=self.cluster.kubeconfig,
                cluster_id=self.cluster.cluster.id,
            ),
            on_cluster,
        )

        images = cfg.tcpx_images
        self.installer = TcpxInstaller(
            f"{name}-nccl-tcpx-installer",
            TcpxInstallerArgs(installer_image=images.installer, pause_image=cfg.pause_image),
            on_cluster,
        )

        if cfg.smoke_test:
            TcpxSmokeTest(
                f"{name}-nccl-test",
                # The installer image carries NCCL and the plugin, as in seed 000's test pods.
                TcpxSmokeTestArgs(
                    test_image=images.installer,
                    daemon_image=images.daemon,
                    depends_on=[self.node_pool, self.installer, self.network_objects],
                ),
                on_cluster,
            )

        self.register_outputs({})
