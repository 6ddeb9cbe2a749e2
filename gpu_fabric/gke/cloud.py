"""GKE's cloud layer: the GPU VPCs, the primary network, the cluster and its GPU node pools.

What waits for what (everything else runs in parallel): the GPU VPCs wait for nothing; the cluster
waits for its primary network only; each GPU node pool waits for the cluster, the VPCs and subnets
it attaches and the node account's role grants.
"""

import pulumi
import pulumi_kubernetes as k8s

from ..catalog import catalog
from ..layers import child_options, declared_outputs, layer_token, merged
from ..versions import gke_version_or_minor, is_minor
from .buckets.component import TrainingBuckets, TrainingBucketsArgs
from .cloud_args import GkeCloudArgs
from .cluster.args import GkeMonitoring
from .cluster.component import (
    AuthorizedNetworkArgs,
    Cluster,
    ClusterArgs,
    in_a_channel,
    monitoring_components,
)
from .cluster.config import NODE_ACCOUNT_ROLES, ReleaseChannel
from .cluster.rules import NO_GKE_DRIVER
from .engine_versions import resolved_version
from .filestore.component import FilestoreInstances, FilestoreInstancesArgs
from .inputs import CLOUD_INPUTS
from .lustre.component import LustreInstances, LustreInstancesArgs
from .network.args import GkeGpuNetwork
from .network.component import (
    ExistingPrimaryNetwork,
    GpuVpc,
    GpuVpcArgs,
    PrimaryNetwork,
    PrimaryNetworkArgs,
    SubnetArgs,
)
from .pool.args import GkeGpuPool
from .pool.component import GpuNodePool, GpuNodePoolArgs, NodeNetwork, PoolCluster


def _channel(args: GkeCloudArgs) -> str:
    """The given channel, or the pools' machine's (catalog `gke.release_channel`)."""
    machine = (
        catalog().machines[args["gpu_pools"][0]["machine_type"]] if args["gpu_pools"] else None
    )
    default = machine.gke.release_channel if machine else ReleaseChannel.REGULAR.value
    return args.get("release_channel", default)


def _primary(name: str, args: GkeCloudArgs, opts: pulumi.ResourceOptions):
    existing = args.get("existing_network")
    if existing is not None:
        return ExistingPrimaryNetwork(**existing)
    primary = args["primary_network"]
    cluster_name = args["cluster_name"]
    return PrimaryNetwork(
        f"{name}-primary",
        PrimaryNetworkArgs(
            name=f"{cluster_name}-primary",
            region=args["region"],
            subnet_cidr=primary["subnet_cidr"],
            # The GKE GPUDirect-TCPX guide: `CLUSTER_NAME-pods` and `CLUSTER_NAME-services`.
            pods_range_name=f"{cluster_name}-pods",
            pods_cidr=primary["pods_cidr"],
            services_range_name=f"{cluster_name}-services",
            services_cidr=primary["services_cidr"],
            cloud_nat=primary["cloud_nat"],
            mtu=primary.get("mtu"),
        ),
        opts,
    )


def _gpu_vpc(net: GkeGpuNetwork, region: str) -> GpuVpcArgs:
    return GpuVpcArgs(
        network_name=net["network_name"],
        subnets=[SubnetArgs(s["name"], s["cidr"]) for s in net["subnets"]],
        region=region,
        mtu=net["mtu"],
        network_profile=net.get("network_profile"),
        firewall_name=net.get("firewall_name"),
        source_ranges=net.get("firewall_source_ranges"),
    )


def default_monitoring(pools: list[GkeGpuPool]) -> GkeMonitoring:
    """A hosted layer's monitoring where its args say none: managed Prometheus, and the GPUs'
    DCGM metrics unless a pool's driver is not GKE's (as a stack file's default)."""
    bundled = any(pool["gpu_driver_version"] == NO_GKE_DRIVER for pool in pools)
    return {"dcgm": not bundled, "managed_prometheus": True}


class GkeCloud(pulumi.ComponentResource):
    """GKE's cloud layer: GPU VPCs, a multi-networking cluster, a system pool, GPU pools."""

    cluster_name: pulumi.Output[str]
    """The GKE cluster's name."""
    cluster_id: pulumi.Output[str]
    """The cluster's id (`projects/P/locations/L/clusters/N`)."""
    endpoint: pulumi.Output[str]
    """The control plane's address."""
    kubeconfig: pulumi.Output[str]
    """An exec-plugin kubeconfig (gke-gcloud-auth-plugin); secret."""
    node_service_account: pulumi.Output[str]
    """E-mail of the nodes' least-privilege service account."""
    gpu_node_pools: pulumi.Output[list[str]]
    """The GPU node pools' names, in the order given."""
    gpu_node_pool: pulumi.Output[str]
    """The first GPU node pool's name."""
    gpu_node_pool_instance_groups: pulumi.Output[list[str]]
    """The GPU node pools' managed instance groups: a replaced pool keeps its name and gets new
    ones, so the fabric's usable-nodes wait runs again on its new nodes."""
    gpu_networks: pulumi.Output[list[str]]
    """The GPU VPCs' names, in NIC order."""
    gpu_subnets: pulumi.Output[list[str]]
    """The GPU subnets' names, one per NIC, in NIC order."""
    nic_networks: pulumi.Output[list[str]]
    """The VPC of each GPU NIC (aligned with gpu_subnets)."""
    file_server_ips: pulumi.Output[dict[str, str] | None]
    """The created Managed Lustre and Filestore instances' IPs, by instance name (only with
    `lustre_instances` or `filestore_instances`)."""

    kubernetes_provider: k8s.Provider
    """The Kubernetes provider bound to this cluster (replaced only with the cluster): the fabric
    layer's `kubernetesProvider`, so that it needs no second one."""

    def __init__(
        self, name: str, args: GkeCloudArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args = CLOUD_INPUTS.checked(GkeCloudArgs, name, args)
        super().__init__(layer_token(GkeCloud), name, None, opts)
        child = child_options(self, opts)
        region = args["region"]

        vpcs = [GpuVpc(n["network_name"], _gpu_vpc(n, region), child) for n in args["gpu_networks"]]
        # NIC order: the VPCs in order, each with its subnets in order.
        nics = [(vpc.network_name, subnet) for vpc in vpcs for subnet in vpc.subnet_names]
        primary = _primary(name, args, child)
        authorized = args.get("master_authorized_networks")
        channel = _channel(args)
        version = gke_version_or_minor(args["version"])
        monitoring = args.get("monitoring") or default_monitoring(args["gpu_pools"])
        # A minor is GKE's newest patch of it, read now; a full version is taken as written.
        self._gke_version = resolved_version(
            args["version"], region, channel, args["gpu_pools"], self
        )
        self._cluster = Cluster(
            name,
            ClusterArgs(
                name=args["cluster_name"],
                project=args["project"],
                location=region,
                version=self._gke_version,
                version_moves=is_minor(gke_version_or_minor(args["version"])),
                network=primary.network,
                subnetwork=primary.subnetwork,
                pods_range_name=primary.pods_range_name,
                services_range_name=primary.services_range_name,
                deletion_protection=args["deletion_protection"],
                private_nodes=args["private_nodes"],
                master_authorized_networks=(
                    [
                        AuthorizedNetworkArgs(n["cidr_block"], n.get("display_name", ""))
                        for n in authorized
                    ]
                    if authorized is not None
                    else None
                ),
                system_machine_type=args["system_machine_type"],
                system_node_count=args["system_node_count"],
                max_pods_per_node=args.get("max_pods_per_node"),
                node_account_roles=args.get("node_account_roles", NODE_ACCOUNT_ROLES),
                release_channel=channel,
                monitoring_components=monitoring_components(version, monitoring["dcgm"]),
                managed_prometheus=monitoring["managed_prometheus"],
                gcs_fuse_csi=bool(args.get("training_buckets")),
                lustre_csi=args.get("lustre_csi", False),
                filestore_csi=args.get("filestore_csi", False),
            ),
            child,
        )
        if args.get("training_buckets"):
            TrainingBuckets(
                f"{name}-training-buckets",
                TrainingBucketsArgs(
                    args["training_buckets"], args["project"], region, self._cluster.cluster
                ),
                child,
            )
        # One GpuNodePool per pool, named after it: a single `gpuPool` moved into `gpuPools` under
        # the same name keeps its URNs.
        pools = [
            self._gpu_node_pool(f"{name}-{pool['name']}", args, pool, nics, child)
            for pool in args["gpu_pools"]
        ]

        servers: list[pulumi.Output[dict[str, str]]] = []
        if args.get("lustre_instances"):
            lustre = LustreInstances(
                f"{name}-lustre",
                LustreInstancesArgs(
                    name=args["cluster_name"],
                    project=args["project"],
                    network=primary.network,
                    node_service_account=self._cluster.node_service_account,
                    instances=args["lustre_instances"],
                ),
                child,
            )
            servers.append(lustre.ips)
        if args.get("filestore_instances"):
            filestore = FilestoreInstances(
                f"{name}-filestore",
                FilestoreInstancesArgs(
                    project=args["project"],
                    network=primary.network,
                    instances=args["filestore_instances"],
                ),
                child,
            )
            servers.append(filestore.ips)
        # By instance: each created instance has its own name.
        self.file_server_ips = (
            pulumi.Output.all(*servers).apply(merged) if servers else None  # type: ignore[assignment]
        )

        cluster = self._cluster.cluster
        self.cluster_name = cluster.name
        self.cluster_id = cluster.id
        self.endpoint = cluster.endpoint
        self.kubeconfig = self._cluster.kubeconfig
        self.node_service_account = self._cluster.node_service_account
        self.gpu_node_pools = pulumi.Output.all(*[p.node_pool_name for p in pools])
        self.gpu_node_pool = pools[0].node_pool_name
        self.gpu_node_pool_instance_groups = pulumi.Output.all(
            *[p.instance_groups for p in pools]
        ).apply(lambda groups: [url for urls in groups for url in urls])
        self.gpu_networks = pulumi.Output.all(*[v.network_name for v in vpcs])
        self.gpu_subnets = pulumi.Output.all(*[subnet for _, subnet in nics])
        self.nic_networks = pulumi.Output.all(*[network for network, _ in nics])
        self.kubernetes_provider = self._cluster.provider
        self.register_outputs(declared_outputs(self))

    def _gpu_node_pool(self, name, args: GkeCloudArgs, pool: GkeGpuPool, nics, opts) -> GpuNodePool:
        cluster = PoolCluster(
            cluster_id=self._cluster.cluster.id,
            region=args["region"],
            version=self._gke_version,
            service_account=self._cluster.node_service_account,
            node_networks=[NodeNetwork(network, subnet) for network, subnet in nics],
            depends_on=list(self._cluster.node_account_grants),
            auto_upgrade=in_a_channel(_channel(args)),
        )
        return GpuNodePool(name, GpuNodePoolArgs(pool, cluster), opts)
