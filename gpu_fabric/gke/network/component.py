"""VPCs: those of the GPU NICs, and the cluster's primary network."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

# The GKE GPUDirect-TCPX guide: `--rules=tcp:0-65535,udp:0-65535,icmp`, the internal rule of
# every GPU VPC that may
# have one.
GPU_VPC_ALLOWS: list[gcp.compute.FirewallAllowArgsDict] = [
    {"protocol": "tcp", "ports": ["0-65535"]},
    {"protocol": "udp", "ports": ["0-65535"]},
    {"protocol": "icmp"},
]


@dataclass(frozen=True)
class SubnetArgs:
    name: str
    """Subnet name."""
    cidr: str
    """Its IPv4 range."""


@dataclass(frozen=True)
class GpuVpcArgs:
    network_name: str
    """VPC name, e.g. `<prefix>-net-N` (the GKE GPUDirect-TCPX guide) or `<prefix>-rdma`."""
    subnets: list[SubnetArgs]
    """One subnet per NIC that uses this VPC, in NIC order."""
    region: str
    """Region of the subnets."""
    mtu: int
    """VPC MTU (8244 for GPUDirect-TCPX, 8896 for RDMA)."""
    network_profile: str | None = None
    """Network profile URL, e.g. `projects/<p>/global/networkProfiles/<zone>-vpc-roce`."""
    firewall_name: str | None = None
    """Name of the internal ingress rule; None for no rule (RDMA VPCs cannot have one)."""
    source_ranges: list[str] | None = None
    """Sources the internal rule allows; default: the VPC's own subnets (never 0.0.0.0/0)."""


class GpuVpc(pulumi.ComponentResource):
    """A custom-mode VPC for GPU NICs: the network, its subnets and an internal firewall rule."""

    network_name: pulumi.Output[str]
    """Name of the VPC (what `additional_node_network_configs` and GKENetworkParamSets take)."""
    subnet_names: list[pulumi.Output[str]]
    """Names of the subnets, in NIC order."""

    def __init__(self, name: str, args: GpuVpcArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-fabric:gcp:GpuVpc", name, None, opts)
        # Fixed physical names cannot coexist with their replacement: delete first.
        replaced_first = pulumi.ResourceOptions(parent=self, delete_before_replace=True)

        network = gcp.compute.Network(
            f"{name}-network",
            name=args.network_name,
            auto_create_subnetworks=False,
            mtu=args.mtu,
            network_profile=args.network_profile,
            opts=replaced_first,
        )
        subnets = [
            gcp.compute.Subnetwork(
                f"{name}-sub-{i}",
                name=subnet.name,
                network=network.id,
                region=args.region,
                ip_cidr_range=subnet.cidr,
                opts=replaced_first,
            )
            for i, subnet in enumerate(args.subnets)
        ]
        if args.firewall_name:
            gcp.compute.Firewall(
                f"{name}-firewall",
                name=args.firewall_name,
                network=network.id,
                direction="INGRESS",
                source_ranges=args.source_ranges or [s.cidr for s in args.subnets],
                allows=GPU_VPC_ALLOWS,
                opts=replaced_first,
            )

        self.network_name = network.name
        self.subnet_names = [subnet.name for subnet in subnets]
        self.register_outputs(
            {"network_name": self.network_name, "subnet_names": self.subnet_names}
        )


@dataclass(frozen=True)
class PrimaryNetworkArgs:
    name: str
    """Name of the VPC, subnet, router and NAT."""
    region: str
    """Region of the subnet, router and NAT."""
    subnet_cidr: str
    """Node range."""
    pods_range_name: str
    """Name of the Pod secondary range."""
    pods_cidr: str
    """Pod secondary range."""
    services_range_name: str
    """Name of the Service secondary range."""
    services_cidr: str
    """Service secondary range."""
    cloud_nat: bool = True
    """Cloud NAT, so private nodes can pull from registries outside Google."""
    mtu: int | None = None
    """The VPC's MTU (None: GCP's 1460), set at creation only."""


@dataclass(frozen=True)
class ExistingPrimaryNetwork:
    """A network the stack does not own: only names are passed on."""

    network: str
    subnetwork: str
    pods_range_name: str
    services_range_name: str


class PrimaryNetwork(pulumi.ComponentResource):
    """The cluster's own VPC: node subnet with pod and service secondary ranges, and Cloud NAT.

    The GKE GPUDirect-TCPX guide adds the secondary ranges to the project's default subnet; a
    stack should own what it configures, so by default it creates a dedicated network instead.
    """

    network: pulumi.Output[str]
    """Self link of the VPC."""
    subnetwork: pulumi.Output[str]
    """Self link of the node subnet."""
    pods_range_name: pulumi.Output[str]
    services_range_name: pulumi.Output[str]

    def __init__(
        self, name: str, args: PrimaryNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:gcp:PrimaryNetwork", name, None, opts)
        replaced_first = pulumi.ResourceOptions(parent=self, delete_before_replace=True)

        # GCP's "Change the MTU setting of a VPC network": never while VMs run (their MTUs would
        # disagree): stop them, update, start them. A deployed VPC keeps its MTU, so a new
        # default (or key) does not update it under running nodes.
        network = gcp.compute.Network(
            f"{name}-net",
            name=args.name,
            auto_create_subnetworks=False,
            mtu=args.mtu,
            opts=pulumi.ResourceOptions.merge(
                replaced_first, pulumi.ResourceOptions(ignore_changes=["mtu"])
            ),
        )
        subnet = gcp.compute.Subnetwork(
            f"{name}-sub",
            name=args.name,
            network=network.id,
            region=args.region,
            ip_cidr_range=args.subnet_cidr,
            # Private nodes reach Google APIs and registries (gcr.io, pkg.dev) without NAT.
            private_ip_google_access=True,
            secondary_ip_ranges=[
                {"range_name": args.pods_range_name, "ip_cidr_range": args.pods_cidr},
                {"range_name": args.services_range_name, "ip_cidr_range": args.services_cidr},
            ],
            opts=replaced_first,
        )
        if args.cloud_nat:
            router = gcp.compute.Router(
                f"{name}-router",
                name=args.name,
                network=network.id,
                region=args.region,
                opts=replaced_first,
            )
            gcp.compute.RouterNat(
                f"{name}-nat",
                name=args.name,
                router=router.name,
                region=args.region,
                nat_ip_allocate_option="AUTO_ONLY",
                source_subnetwork_ip_ranges_to_nat="LIST_OF_SUBNETWORKS",
                subnetworks=[{"name": subnet.id, "source_ip_ranges_to_nats": ["ALL_IP_RANGES"]}],
                log_config={"enable": True, "filter": "ERRORS_ONLY"},
                opts=replaced_first,
            )

        self.network = network.self_link
        self.subnetwork = subnet.self_link
        self.pods_range_name = pulumi.Output.from_input(args.pods_range_name)
        self.services_range_name = pulumi.Output.from_input(args.services_range_name)
        self.register_outputs(
            {
                "network": self.network,
                "subnetwork": self.subnetwork,
                "pods_range_name": self.pods_range_name,
                "services_range_name": self.services_range_name,
            }
        )
