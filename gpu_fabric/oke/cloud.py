"""OKE's cloud layer: the VCN, an ENHANCED cluster with a system pool, and the RDMA GPU nodes.

What waits for what (everything else runs in parallel):
- the VCN parts wait for the VCN (and the route table for its gateways); the NSGs for the VCN;
- the cluster waits for its VCN, API subnet, API NSG and load balancer subnet; the system pool for
  the cluster, the workers and pods subnets and their NSGs;
- the dynamic group and the compute cluster wait for nothing (but the home region's provider, if
  any); the join policy for the cluster id;
- each GPU node waits for the compute cluster, its subnets and NSGs and the cluster (endpoint and CA
  in its cloud-init), not for the join policy: it asks to join minutes later, once booted
  (nodes.py).
"""

from typing import Any, TypedDict

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci

from ..layers import child_options, declared_outputs, layer_token, merged
from .cloud_args import OkeCloudArgs, OkeGpuNodes
from .cluster.component import Cluster, OkeClusterArgs, SystemPoolArgs, ca_certificate
from .cluster.versions_offered import moves, resolved_version
from .file_storage.component import FileStorage, FileStorageArgs
from .inputs import CLOUD_INPUTS
from .lustre.component import LustreFileSystems, LustreFileSystemsArgs
from .network.component import ExistingOkeNetworkArgs, Network, Nsg, OkeNetworkArgs
from .nodes.component import (
    RDMA_GPU_MONITORING_PLUGIN,
    RUN_COMMAND_PLUGIN,
    RdmaNodes,
    RdmaNodesArgs,
    policy_scope,
)


def optional_plugins(nodes: OkeGpuNodes) -> list[str]:
    """The optional agent plugins the nodes enable."""
    wanted = {
        RUN_COMMAND_PLUGIN: nodes.get("run_command_plugin", False),
        RDMA_GPU_MONITORING_PLUGIN: nodes.get("rdma_gpu_monitoring_plugin", False),
    }
    return [plugin for plugin, on in wanted.items() if on]


# The `oci:` config keys that say how to authenticate: an explicit provider does not read the
# stack's `oci:` config, so the home region's provider gets them from it (plain or secret).
_AUTH_KEYS = {
    "auth": "auth",
    "configFileProfile": "config_file_profile",
    "tenancyOcid": "tenancy_ocid",
    "userOcid": "user_ocid",
    "fingerprint": "fingerprint",
    "privateKeyPath": "private_key_path",
}
_SECRET_AUTH_KEYS = {"privateKey": "private_key", "privateKeyPassword": "private_key_password"}


def home_region_of(tenancy_id: str, opts: pulumi.ResourceOptions) -> pulumi.Output[str]:
    """The tenancy's home region, looked up as oci-hpc-oke's terraform/provider.tf does (the
    region subscription with `is_home_region`): a stack need not know it."""
    subscriptions = oci.identity.get_region_subscriptions_output(
        tenancy_id=tenancy_id,
        filters=[{"name": "is_home_region", "values": ["true"]}],
        opts=pulumi.InvokeOutputOptions(parent=opts.parent),
    )
    return subscriptions.region_subscriptions.apply(_the_home_region)


def _the_home_region(subscriptions: list[Any]) -> str:
    homes = [s.region_name for s in subscriptions if s.is_home_region]
    if len(homes) != 1:
        # Only an API that answers with no home region gets here: name the override.
        raise ValueError(
            f"the tenancy's region subscriptions name {len(homes)} home regions; set "
            "gpu-fabric:oke.homeRegion to the tenancy's home region"
        )
    return homes[0]


def home_region_provider(
    name: str, region: pulumi.Input[str], opts: pulumi.ResourceOptions
) -> oci.Provider:
    """A provider for the tenancy's home region, authenticated as the stack's default one.

    IAM resources are written in the home region only (terraform-oci-oke passes its IAM module
    `providers = { oci.home = oci.home }`, module-iam.tf; oci-hpc-oke's terraform/iam.tf sets
    `provider = oci.home` on each dynamic group and policy); elsewhere their create fails.
    """
    config = pulumi.Config("oci")
    auth: dict[str, pulumi.Input[str]] = {}
    for key, arg in _AUTH_KEYS.items():
        value = config.get(key)
        if value is not None:
            auth[arg] = value
    for key, arg in _SECRET_AUTH_KEYS.items():
        secret = config.get_secret(key)
        if secret is not None:
            auth[arg] = secret
    return oci.Provider(name, region=region, **auth, opts=opts)  # type: ignore[arg-type]


class _NetworkCommon(TypedDict):
    """What both kinds of network args take from the cloud args."""

    compartment_id: str
    name: str
    api_allowed_cidrs: list[str]
    ssh_allowed_cidrs: list[str]


def _network_args(args: OkeCloudArgs) -> OkeNetworkArgs | ExistingOkeNetworkArgs:
    common: _NetworkCommon = {
        "compartment_id": args["compartment_id"],
        "name": args["cluster_name"],
        "api_allowed_cidrs": args["api_allowed_cidrs"],
        "ssh_allowed_cidrs": args["ssh_allowed_cidrs"],
    }
    existing = args.get("existing_vcn")
    if existing is not None:
        return ExistingOkeNetworkArgs(
            vcn_id=existing["vcn_id"],
            vcn_cidr=existing["vcn_cidr"],
            api_subnet_id=existing["api_subnet_id"],
            load_balancer_subnet_id=existing["load_balancer_subnet_id"],
            workers_subnet_id=existing["workers_subnet_id"],
            pods_subnet_id=existing.get("pods_subnet_id"),
            **common,
        )
    vcn = args["vcn"]
    return OkeNetworkArgs(
        vcn_cidr=vcn["vcn_cidr"],
        api_subnet_cidr=vcn["api_subnet_cidr"],
        load_balancer_subnet_cidr=vcn["load_balancer_subnet_cidr"],
        workers_subnet_cidr=vcn["workers_subnet_cidr"],
        pods_subnet_cidr=vcn.get("pods_subnet_cidr"),
        **common,
    )


class OkeCloud(pulumi.ComponentResource):
    """OKE's cloud layer: VCN and NSGs, ENHANCED cluster, system pool, RDMA GPU nodes."""

    cluster_name: pulumi.Output[str]
    """The OKE cluster's name."""
    cluster_id: pulumi.Output[str]
    """The cluster's OCID."""
    api_server_host: pulumi.Output[str]
    """The Kubernetes API endpoint (`host:6443`)."""
    kubeconfig: pulumi.Output[str]
    """A kubeconfig with the OCI CLI exec plugin; secret."""
    vcn_id: pulumi.Output[str]
    """The VCN's OCID."""
    load_balancer_nsg_id: pulumi.Output[str]
    """Name it on LoadBalancer Services (`oci.oraclecloud.com/oci-network-security-groups`):
    the workers admit node-port traffic from this NSG only."""
    compute_cluster_id: pulumi.Output[str]
    """The GPU nodes' compute cluster."""
    gpu_nodes: pulumi.Output[list[str]]
    """The GPU instances' display names."""
    gpu_node_ids: pulumi.Output[list[str]]
    """The GPU instances' OCIDs: the fabric's node waits run again when one changes (a replaced
    instance keeps its display name, not its OCID)."""
    file_system_handles: pulumi.Output[dict[str, str] | None]
    """The created training file systems' CSI volume handles, by name (only with
    `file_systems`)."""

    kubernetes_provider: k8s.Provider
    """The Kubernetes provider bound to this cluster (replaced only with the cluster): the fabric
    layer's `kubernetesProvider`, so that it needs no second one."""

    def __init__(
        self, name: str, args: OkeCloudArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args = CLOUD_INPUTS.checked(OkeCloudArgs, name, args)
        super().__init__(layer_token(OkeCloud), name, None, opts)
        child = child_options(self, opts)
        nodes, system = args["gpu_nodes"], args["system_pool"]
        net = Network(f"{name}-network", _network_args(args), child)
        pods_nsg = net.nsg_ids.get(Nsg.PODS)
        # A minor is OKE's newest patch of it, read now; a full version is taken as written.
        version = resolved_version(args["kubernetes_version"], args["compartment_id"], self)
        cluster = Cluster(
            name,
            OkeClusterArgs(
                compartment_id=args["compartment_id"],
                name=args["cluster_name"],
                kubernetes_version=version,
                version_moves=moves(args["kubernetes_version"]),
                vcn_id=net.vcn_id,
                api_subnet_id=net.api_subnet_id,
                api_nsg_id=net.nsg_ids[Nsg.API],
                load_balancer_subnet_id=net.load_balancer_subnet_id,
                cni=args["cni"],
                pods_cidr=args.get("pods_cidr"),
                services_cidr=args["services_cidr"],
                public_endpoint=args["public_endpoint"],
                protect=args["deletion_protection"],
                system_pool=SystemPoolArgs(
                    shape=system["shape"],
                    ocpus=system["ocpus"],
                    memory_gbs=system["memory_gbs"],
                    node_count=system["node_count"],
                    image_id=system["image_id"],
                    availability_domain=nodes["availability_domain"],
                    workers_subnet_id=net.workers_subnet_id,
                    workers_nsg_id=net.nsg_ids[Nsg.WORKERS],
                    pods_subnet_id=net.pods_subnet_id,
                    pods_nsg_id=pods_nsg,
                    max_pods_per_node=args["max_pods_per_node"],
                ),
            ),
            child,
        )
        self._cluster = cluster
        home = args.get("home_region") or home_region_of(args["tenancy_id"], child)
        here = pulumi.Config("oci").get("region")
        identity = None if home == here else home_region_provider(f"{name}-home", home, child)
        tag = (nodes.get("join_tag_namespace"), nodes.get("join_tag_key"))
        rdma_nodes = RdmaNodes(
            f"{name}-gpu",
            RdmaNodesArgs(
                tenancy_id=args["tenancy_id"],
                compartment_id=args["compartment_id"],
                name=args["cluster_name"],
                shape=nodes["shape"],
                count=nodes["count"],
                availability_domain=nodes["availability_domain"],
                image_id=nodes["image_id"],
                boot_volume_size_gbs=nodes["boot_volume_size_gbs"],
                # The cluster's own version (its state once made), not OKE's newest patch now:
                # a node added later joins at the control plane's version.
                kubernetes_version=cluster.cluster.kubernetes_version,
                cluster_id=cluster.cluster.id,
                api_server_host=cluster.api_server_host,
                # The CA certificate is public (every client gets it); only the kubeconfig that
                # carries it is kept secret, so the nodes' metadata need not be.
                ca_certificate_b64=pulumi.Output.unsecret(cluster.kubeconfig.apply(ca_certificate)),
                workers_subnet_id=net.workers_subnet_id,
                workers_nsg_id=net.nsg_ids[Nsg.WORKERS],
                pods_subnet_id=net.pods_subnet_id,
                pods_nsg_id=pods_nsg,
                max_pods_per_node=args["max_pods_per_node"],
                ssh_public_key=nodes.get("ssh_public_key"),
                capacity_reservation_id=nodes.get("capacity_reservation_id"),
                join_tag=(tag[0], tag[1]) if tag[0] and tag[1] else None,
                optional_plugins=optional_plugins(nodes),
                nvme_raid=nodes.get("nvme_raid"),
                cluster=cluster.cluster,
                identity_provider=identity,
            ),
            child,
        )

        handles: list[pulumi.Output[dict[str, str]]] = []
        if args.get("file_systems"):
            vcn = args.get("vcn")
            storage = FileStorage(
                f"{name}-file-storage",
                FileStorageArgs(
                    name=args["cluster_name"],
                    compartment_id=args["compartment_id"],
                    availability_domain=nodes["availability_domain"],
                    vcn_id=net.vcn_id,
                    workers_subnet_id=net.workers_subnet_id,
                    workers_nsg_id=net.nsg_ids[Nsg.WORKERS],
                    workers_cidr=vcn["workers_subnet_cidr"]
                    if vcn is not None
                    else args["existing_vcn"]["vcn_cidr"],
                    file_systems=args["file_systems"],
                ),
                child,
            )
            handles.append(storage.handles)
        if args.get("lustre_file_systems"):
            lustre = LustreFileSystems(
                f"{name}-lustre",
                LustreFileSystemsArgs(
                    name=args["cluster_name"],
                    compartment_id=args["compartment_id"],
                    policy_scope=policy_scope(args["compartment_id"]),
                    availability_domain=nodes["availability_domain"],
                    vcn_id=net.vcn_id,
                    workers_subnet_id=net.workers_subnet_id,
                    workers_nsg_id=net.nsg_ids[Nsg.WORKERS],
                    file_systems=args["lustre_file_systems"],
                    identity_provider=identity,
                ),
                child,
            )
            handles.append(lustre.handles)
        # By use: a volume is one kind, so the two never name the same one.
        self.file_system_handles = (
            pulumi.Output.all(*handles).apply(merged) if handles else None  # type: ignore[assignment]
        )

        self.cluster_name = cluster.cluster.name
        self.cluster_id = cluster.cluster.id
        self.api_server_host = cluster.api_server_host
        self.kubeconfig = cluster.kubeconfig
        self.vcn_id = net.vcn_id
        self.load_balancer_nsg_id = net.nsg_ids[Nsg.LOAD_BALANCERS]
        self.compute_cluster_id = rdma_nodes.compute_cluster.id
        self.gpu_nodes = pulumi.Output.all(*[i.display_name for i in rdma_nodes.instances])
        self.gpu_node_ids = pulumi.Output.all(*[i.id for i in rdma_nodes.instances])
        self.kubernetes_provider = self._cluster.provider
        self.register_outputs(declared_outputs(self))
