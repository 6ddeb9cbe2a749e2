"""A GKE GPU cluster with its GPU fabric, as one component wired in dependency order.

The machine's catalog entry decides the NICs, VPCs and Network objects; the fabric
(`FABRICS` below) decides the installer and what else goes in the cluster. What waits for what,
and why (everything else runs in parallel):
- the GPU VPCs wait for nothing; the cluster waits for its primary network only;
- the GPU node pool waits for the cluster, the VPCs/subnets it attaches and the node account's role
  grant, never for in-cluster objects (GKE resolves the Network objects when pods ask for them);
- the Network objects wait for the CRD gate (the CRDs served) and the VPC/subnet names;
- the installer DaemonSet and the StorageClass wait for the cluster's provider only;
- the optional smoke test waits for the node pool, the installer and the Network objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pulumi

from .cluster import AuthorizedNetworkArgs, Cluster, ClusterArgs
from .config import (
    DriverInstall,
    GkeA3HighConfig,
    GkeA3MegaConfig,
    GkeA4xConfig,
    GkeStackConfig,
    GpuPoolConfig,
    InstallerOwner,
)
from .gcp_network import (
    ExistingPrimaryNetwork,
    GpuVpc,
    GpuVpcArgs,
    PrimaryNetwork,
    PrimaryNetworkArgs,
    SubnetArgs,
)
from .gib import HyperdiskStorage, HyperdiskStorageArgs, TrainingRuntime, TrainingRuntimeArgs
from .gpu_node_pool import GpuNodePool, GpuNodePoolArgs, NodeNetwork, PlacementPolicy, Reservation
from .nccl_installer import (
    GIB_INSTALLERS,
    TCPX_INSTALLER,
    TCPXO_INSTALLER,
    NcclInstaller,
    NcclInstallerArgs,
)
from .network_objects import DeviceNetwork, NetworkObjects, NetworkObjectsArgs
from .tcpx import TcpxSmokeTest, TcpxSmokeTestArgs
from .tcpxo import NriDeviceInjector, NriDeviceInjectorArgs

# Seed 003: with a bundle-installed driver, GKE's own device plugin stays off these nodes.
NO_GKE_DEVICE_PLUGIN_LABEL = {"gke-no-default-nvidia-gpu-device-plugin": "true"}


def _named(pattern: str, prefix: str, nic: int) -> str:
    """Fill a catalog name pattern for the NIC at 0-based index `nic` of its group."""
    return pattern.format(prefix=prefix, n=nic + 1, i=nic)


def gpu_vpc_args(cfg: GkeStackConfig) -> list[GpuVpcArgs]:
    """The VPCs of every NIC group, named by the catalog's patterns, in NIC order."""
    prefix, vpcs = cfg.name_prefix, []
    for plan in cfg.nic_groups:
        group, names = plan.group, plan.group.names
        profile = (
            f"projects/{cfg.project}/global/networkProfiles/{cfg.pool.zone}-{group.network_profile}"
            if group.network_profile
            else None
        )
        nics = list(range(group.count))
        for vpc_nics in [[nic] for nic in nics] if group.vpc_per_nic else [nics]:
            first = vpc_nics[0]
            vpcs.append(
                GpuVpcArgs(
                    network_name=_named(names.network, prefix, first),
                    subnets=[
                        SubnetArgs(_named(names.subnet, prefix, nic), plan.subnets[nic])
                        for nic in vpc_nics
                    ],
                    region=cfg.region,
                    mtu=plan.mtu,
                    network_profile=profile,
                    firewall_name=_named(names.firewall, prefix, first) if names.firewall else None,
                    source_ranges=plan.firewall_source_ranges,
                )
            )
    return vpcs


def _primary_network(name: str, cfg: GkeStackConfig, opts: pulumi.ResourceOptions):
    primary = cfg.network.primary
    if primary.existing is not None:
        e = primary.existing
        return ExistingPrimaryNetwork(
            e.network, e.subnetwork, e.pods_range_name, e.services_range_name
        )
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


@dataclass(frozen=True)
class Fabric:
    """What a GPU fabric adds to the common cluster."""

    installer: Callable[[GkeStackConfig], Path]
    """Vendored upstream installer DaemonSet of the stack's machine."""
    installer_image: Callable[[GkeStackConfig], str]
    extras: Callable[[GpuCluster, str, GkeStackConfig, pulumi.ResourceOptions], None]
    """Registers the fabric's own in-cluster objects."""


def _tcpx_extras(fabric: GpuCluster, name: str, cfg: GkeA3HighConfig, on_cluster) -> None:
    if cfg.smoke_test:
        images = cfg.tcpx_images
        TcpxSmokeTest(
            f"{name}-nccl-test",
            # The installer image carries NCCL and the plugin, as in seed 000's test pods.
            TcpxSmokeTestArgs(
                test_image=images.installer,
                daemon_image=images.daemon,
                depends_on=[
                    r
                    for r in (*fabric.node_pools, fabric.installer, fabric.network_objects)
                    if r is not None
                ],
            ),
            on_cluster,
        )


def _gib_extras(fabric: GpuCluster, name: str, cfg: GkeStackConfig, on_cluster) -> None:
    if not isinstance(cfg, GkeA4xConfig):
        return  # A3 Ultra and A4 attach Persistent Disk; the training runtime is AICR's (A4X)
    # a4x nodes cannot attach Persistent Disk; PVCs need a Hyperdisk class (seed 003).
    storage = cfg.hyperdisk_storage_class
    HyperdiskStorage(
        f"{name}-hyperdisk", HyperdiskStorageArgs(storage.name, storage.is_default), on_cluster
    )
    if cfg.training_runtime:
        TrainingRuntime(
            f"{name}-torch-distributed-rdma",
            TrainingRuntimeArgs(
                image=cfg.training_runtime_image,
                networks=[n for plan in cfg.nic_groups for n in plan.object_names],
                gpus=cfg.machine.accelerator.count,
                kubeconfig=fabric.cluster.kubeconfig,
                cluster_id=fabric.cluster.cluster.id,
            ),
            on_cluster,
        )


def _tcpxo_extras(fabric: GpuCluster, name: str, cfg: GkeA3MegaConfig, on_cluster) -> None:
    # The tcpxo-daemon gets its GPU devices from the NRI device injector (upstream README); it
    # belongs with the installer, so it follows `installer.owner`.
    if cfg.installer.owner is InstallerOwner.STACK:
        NriDeviceInjector(
            f"{name}-nri-device-injector",
            NriDeviceInjectorArgs(cfg.nri_device_injector_image, cfg.installer.await_rollout),
            on_cluster,
        )


FABRICS: dict[str, Fabric] = {
    "gpudirect-tcpx": Fabric(
        lambda cfg: TCPX_INSTALLER, lambda cfg: cfg.tcpx_images.installer, _tcpx_extras
    ),
    "gpudirect-tcpxo": Fabric(
        lambda cfg: TCPXO_INSTALLER, lambda cfg: cfg.tcpxo_images.installer, _tcpxo_extras
    ),
    "gpudirect-rdma": Fabric(
        lambda cfg: GIB_INSTALLERS[cfg.machine.arch],
        lambda cfg: cfg.gib_installer_image,
        _gib_extras,
    ),
}


def _gpu_node_pool(
    name: str,
    cfg: GkeStackConfig,
    pool: GpuPoolConfig,
    cluster: Cluster,
    nics: list[tuple[pulumi.Output[str], pulumi.Output[str]]],
    opts: pulumi.ResourceOptions,
) -> GpuNodePool:
    """A GPU node pool on the fabric's shared NICs, with its own size, reservation and placement."""
    machine = cfg.machine
    return GpuNodePool(
        name,
        GpuNodePoolArgs(
            name=pool.name,
            cluster_id=cluster.cluster.id,
            location=cfg.region,
            region=cfg.region,
            zone=pool.zone,
            version=cfg.gke.version,
            machine_type=pool.machine_type,
            accelerator_type=machine.accelerator.type,
            accelerator_count=machine.accelerator.count,
            gpu_driver_version=cfg.gpu_driver_version_of(pool).value,
            node_count=pool.node_count,
            service_account=cluster.node_service_account,
            node_networks=[NodeNetwork(network, subnet) for network, subnet in nics],
            local_ssd_count=cfg.local_ssd_count_of(pool),
            placement=(
                PlacementPolicy(
                    f"{cfg.gke.name}-{pool.name}-compact"[:63].rstrip("-"), machine.placement
                )
                if pool.compact_placement
                else None
            ),
            reservation=(
                Reservation(pool.reservation.name, pool.reservation.project)
                if pool.reservation
                else None
            ),
            boot_disk_type=cfg.boot_disk_type_of(pool),
            boot_disk_size_gb=pool.boot_disk.size_gb,
            labels=(
                NO_GKE_DEVICE_PLUGIN_LABEL if pool.driver_install is DriverInstall.BUNDLE else {}
            ),
            depends_on=list(cluster.node_account_grants),
        ),
        opts,
    )


class GpuCluster(pulumi.ComponentResource):
    """GPU VPCs, a multi-networking GKE cluster, a GPU node pool, Network objects and the fabric."""

    cluster: Cluster
    gpu_vpcs: list[GpuVpc]
    node_pools: list[GpuNodePool]
    """One per configured pool, in config order."""
    node_pool: GpuNodePool
    """The first GPU node pool."""
    network_objects: NetworkObjects
    installer: NcclInstaller | None
    """None when something outside the stack owns the installer (`installer.owner: external`)."""

    def __init__(self, name: str, cfg: GkeStackConfig, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-fabric:gke:GpuCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        machine = cfg.machine
        fabric = FABRICS[machine.fabric]

        self.gpu_vpcs = [GpuVpc(args.network_name, args, child) for args in gpu_vpc_args(cfg)]
        # NIC order: the VPCs in catalog order, each with its subnets in order.
        nics = [(vpc.network_name, subnet) for vpc in self.gpu_vpcs for subnet in vpc.subnet_names]
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
                max_pods_per_node=cfg.gke.max_pods_per_node,
            ),
            child,
        )

        # One GpuNodePool per pool, named after it: a single `gpuPool` moved into `gpuPools` under
        # the same name keeps its URNs.
        self.node_pools = [
            _gpu_node_pool(f"{name}-{pool.name}", cfg, pool, self.cluster, nics, child)
            for pool in cfg.pools
        ]
        self.node_pool = self.node_pools[0]

        on_cluster = pulumi.ResourceOptions(parent=self, providers=[self.cluster.provider])
        object_names = [n for plan in cfg.nic_groups for n in plan.object_names]
        device_modes = [
            plan.group.device_mode.value for plan in cfg.nic_groups for _ in plan.subnets
        ]
        self.network_objects = NetworkObjects(
            f"{name}-networks",
            NetworkObjectsArgs(
                networks=[
                    DeviceNetwork(object_name, network, subnet, mode)
                    for object_name, (network, subnet), mode in zip(
                        object_names, nics, device_modes, strict=True
                    )
                ],
                kubeconfig=self.cluster.kubeconfig,
                cluster_id=self.cluster.cluster.id,
            ),
            on_cluster,
        )

        self.installer = None
        if cfg.installer.owner is InstallerOwner.STACK:
            installer = fabric.installer(cfg)
            self.installer = NcclInstaller(
                f"{name}-{installer.stem}",
                NcclInstallerArgs(
                    installer,
                    fabric.installer_image(cfg),
                    cfg.pause_image,
                    await_rollout=cfg.installer.await_rollout,
                ),
                on_cluster,
            )
        fabric.extras(self, name, cfg, on_cluster)
        self.register_outputs({})
