"""ACK's cloud layer: an ACK Pro cluster in the Lingjun cluster's VPC, with a system pool, the RDMA
add-on and the Lingjun node pool.

What waits for what (everything else runs in parallel): the cluster waits for nothing it creates
(the VPC and vSwitches exist); the system pool and the RDMA add-on for the cluster; the Lingjun
pool for the add-on (a documented prerequisite) and the system pool.
"""

import pulumi
import pulumi_alicloud.cs as cs
import pulumi_kubernetes as k8s

from ..catalog import catalog
from ..layers import child_options, declared_outputs, layer_token
from .cloud_args import AckCloudArgs
from .cluster.component import AckClusterArgs, Cluster, SystemPoolArgs
from .cluster.versions_offered import moves, resolved_version
from .inputs import CLOUD_INPUTS
from .lingjun.component import LingjunPool, LingjunPoolArgs
from .network.component import ExistingAckNetworkArgs, Network


def _network_args(args: AckCloudArgs) -> ExistingAckNetworkArgs:
    existing = args["existing_vpc"]  # required by the layer's input rules (inputs.py)
    return ExistingAckNetworkArgs(
        vpc_id=existing["vpc_id"],
        node_vswitch_ids=list(existing["node_vswitch_ids"]),
        pod_vswitch_ids=list(existing["pod_vswitch_ids"]),
    )


class AckCloud(pulumi.ComponentResource):
    """ACK's cloud layer: VPC, ACK Pro cluster, system pool, RDMA add-on, Lingjun pool."""

    cluster_name: pulumi.Output[str]
    """The ACK cluster's name."""
    cluster_id: pulumi.Output[str]
    """The cluster's id."""
    kubeconfig: pulumi.Output[str]
    """A client-certificate kubeconfig; secret."""
    vpc_id: pulumi.Output[str]
    """The VPC's id."""
    lingjun_node_pool_id: pulumi.Output[str]
    """The Lingjun node pool's id."""
    rdma_addon: pulumi.Output[str]
    """The RDMA add-on's name and version."""
    rdma_non_host_network: pulumi.Output[bool]
    """Whether pods off the host network get RDMA."""

    kubernetes_provider: k8s.Provider
    """The Kubernetes provider bound to this cluster (replaced only with the cluster): the fabric
    layer's `kubernetesProvider`, so that it needs no second one."""

    def __init__(
        self, name: str, args: AckCloudArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args = CLOUD_INPUTS.checked(AckCloudArgs, name, args)
        super().__init__(layer_token(AckCloud), name, None, opts)
        child = child_options(self, opts)
        facts, system = catalog().ack, args["system_pool"]
        net = Network(f"{name}-network", _network_args(args), child)
        cluster = Cluster(
            name,
            AckClusterArgs(
                name=args["cluster_name"],
                cluster_spec=facts.cluster_spec,
                # A minor is ACK's newest version of it, read now; a full one as written.
                kubernetes_version=resolved_version(args["kubernetes_version"], self),
                version_moves=moves(args["kubernetes_version"]),
                vswitch_ids=net.node_vswitch_ids,
                pod_vswitch_ids=net.pod_vswitch_ids,
                service_cidr=args["service_cidr"],
                ip_stack=args["ip_stack"],
                proxy_mode=args["proxy_mode"],
                addons=facts.cluster_addons,
                public_endpoint=args["public_endpoint"],
                deletion_protection=args["deletion_protection"],
                system_pool=SystemPoolArgs(
                    instance_types=list(system["instance_types"]),
                    node_count=system["node_count"],
                    key_name=system["key_name"],
                    system_disk_category=system["system_disk_category"],
                    system_disk_size=system["system_disk_size"],
                    vswitch_ids=net.node_vswitch_ids,
                ),
            ),
            child,
        )
        self._cluster = cluster
        lingjun = LingjunPool(
            f"{name}-lingjun",
            LingjunPoolArgs(
                cluster_id=cluster.cluster.id,
                pool_name=args["lingjun"]["pool_name"],
                lingjun_cluster_id=args["lingjun"]["cluster_id"],
                lingjun_group_id=args["lingjun"]["group_id"],
                addon_name=facts.rdma_device_plugin.name,
                addon_version=args["rdma_addon_version"],
                non_host_network=args["non_host_network"],
                non_host_network_key=args["non_host_network_key"],
                pool_after=[cluster.system_pool],
            ),
            child,
        )
        if args.get("cpfs_csi"):
            for addon in facts.cpfs_csi.addons:
                cs.KubernetesAddon(
                    f"{name}-{addon}",
                    cluster_id=cluster.cluster.id,
                    # Always explicit: the provider auto-names an add-on otherwise.
                    name=addon,
                    # Beside the pools: a node plugin's DaemonSet waits for no node. One add-on of
                    # a name per cluster: a replacement is deleted first.
                    opts=pulumi.ResourceOptions.merge(
                        child, pulumi.ResourceOptions(delete_before_replace=True)
                    ),
                )
        self.cluster_name = cluster.cluster.name
        self.cluster_id = cluster.cluster.id
        self.kubeconfig = cluster.kubeconfig
        self.vpc_id = net.vpc_id
        self.lingjun_node_pool_id = lingjun.pool.id
        self.rdma_addon = pulumi.Output.concat(lingjun.addon.name, " ", lingjun.addon.version)
        self.rdma_non_host_network = pulumi.Output.from_input(args["non_host_network"])
        self.kubernetes_provider = self._cluster.provider
        self.register_outputs(declared_outputs(self))
