"""The OKE network: a VCN with its subnets, gateways, route tables and network security groups.

Every subnet is private. Nodes and pods reach the internet through a NAT gateway and Oracle services
through a service gateway. The NSG rules are the ones OKE documents for VCN-native pod networking
(Oracle docs "Network Resource Configuration for Cluster Creation and Deployment"), as
oracle-terraform-modules/terraform-oci-oke writes them (`modules/network/nsg-*.tf`), with one
change: ICMP path discovery is accepted from the VCN, not from 0.0.0.0/0. Nothing from outside the
VCN gets in but the ranges a stack lists (`apiAllowedCidrs` to 6443, `sshAllowedCidrs` to 22), and
`/0` is refused for those; 0.0.0.0/0 appears only as an egress destination, through the NAT gateway.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TypedDict

import pulumi
import pulumi_oci as oci

ANYWHERE = "0.0.0.0/0"
TCP, UDP, ICMP, ALL = "6", "17", "1", "all"
KUBE_API, OKE_CONTROL, KUBELET = (6443, 6443), (12250, 12250), (10250, 10250)
NODE_PORTS, HEALTH_CHECK, SSH = (30000, 32767), (10256, 10256), (22, 22)
# ICMP type 3 code 4, "fragmentation needed": path MTU discovery (every OKE rule set).
PATH_DISCOVERY: oci.core.NetworkSecurityGroupSecurityRuleIcmpOptionsArgsDict = {
    "type": 3,
    "code": 4,
}
# The region's "All <region> Services In Oracle Services Network" (terraform-oci-vcn's filter).
ALL_SERVICES_FILTER: oci.core.GetServicesFilterArgsDict = {
    "name": "name",
    "values": ["All .* Services In Oracle Services Network"],
    "regex": True,
}


class _InVcn(TypedDict):
    """The arguments every resource in the VCN shares."""

    compartment_id: pulumi.Input[str]
    vcn_id: pulumi.Input[str]


class Nsg(str, Enum):
    """The network security groups, by what sits in them."""

    API = "api"
    WORKERS = "workers"
    PODS = "pods"
    LOAD_BALANCERS = "lb"


SERVICES = "oracle-services"
"""A rule peer: the region's Oracle services (a SERVICE_CIDR_BLOCK)."""


@dataclass(frozen=True)
class Rule:
    """One stateful NSG rule of `nsg`; `peer` is an Nsg, a CIDR, or SERVICES."""

    nsg: Nsg
    direction: str
    peer: Nsg | str
    protocol: str
    ports: tuple[int, int] | None = None
    """Destination ports (TCP or UDP); None for all."""
    description: str = ""

    @property
    def key(self) -> str:
        """A name for the rule from what it allows, so adding a rule renames no other."""
        peer = self.peer.value if isinstance(self.peer, Nsg) else self.peer
        ports = f"{self.ports[0]}-{self.ports[1]}" if self.ports else "any"
        protocol = {TCP: "tcp", UDP: "udp", ICMP: "icmp", ALL: "all"}[self.protocol]
        text = f"{self.nsg.value}-{self.direction.lower()}-{peer}-{protocol}-{ports}"
        return text.replace("/", "-").replace(".", "-")


def _both_ways(a: Nsg, b: Nsg, protocol: str, what: str) -> list[Rule]:
    """Traffic from `a` to `b`: egress of a and ingress of b (both NSGs filter it)."""
    return [Rule(a, "EGRESS", b, protocol, None, what), Rule(b, "INGRESS", a, protocol, None, what)]


def security_rules(vcn_cidr: str, vcn_native: bool, api_from: list[str], ssh_from: list[str]):
    """The NSG rules of the cluster's parts (no pod NSG with the flannel CNI)."""
    api, workers, pods, lbs = Nsg.API, Nsg.WORKERS, Nsg.PODS, Nsg.LOAD_BALANCERS
    rules = [
        # Kubernetes API endpoint (nsg-controlplane.tf).
        Rule(api, "EGRESS", SERVICES, TCP, None, "control plane to Oracle services"),
        Rule(api, "EGRESS", workers, TCP, KUBELET, "control plane to kubelets"),
        Rule(api, "INGRESS", workers, TCP, OKE_CONTROL, "nodes to the OKE control plane"),
        Rule(api, "EGRESS", workers, TCP, OKE_CONTROL, "OKE control plane to nodes"),
        Rule(api, "INGRESS", api, TCP, KUBE_API, "control plane to kube-apiserver"),
        Rule(api, "EGRESS", api, TCP, KUBE_API, "control plane to kube-apiserver"),
        Rule(api, "INGRESS", workers, TCP, KUBE_API, "nodes to kube-apiserver"),
        Rule(api, "INGRESS", workers, ICMP, None, "path discovery"),
        Rule(api, "EGRESS", workers, ICMP, None, "path discovery"),
        *(
            Rule(api, "INGRESS", c, TCP, KUBE_API, "allowed clients to kube-apiserver")
            for c in api_from
        ),
        # Worker nodes (nsg-workers.tf).
        Rule(workers, "EGRESS", SERVICES, TCP, None, "nodes to Oracle services"),
        *_both_ways(workers, workers, ALL, "node to node"),
        Rule(workers, "EGRESS", api, TCP, KUBE_API, "nodes to kube-apiserver"),
        Rule(workers, "EGRESS", api, TCP, OKE_CONTROL, "nodes to the OKE control plane"),
        Rule(workers, "EGRESS", api, TCP, KUBELET, "kubelet to the control plane"),
        Rule(workers, "INGRESS", api, ALL, None, "control plane to nodes (webhooks, exec)"),
        Rule(workers, "EGRESS", ANYWHERE, ICMP, None, "path discovery"),
        Rule(workers, "INGRESS", vcn_cidr, ICMP, None, "path discovery"),
        Rule(workers, "EGRESS", ANYWHERE, ALL, None, "nodes to the internet through NAT"),
        *(Rule(workers, "INGRESS", c, TCP, SSH, "allowed SSH") for c in ssh_from),
        # Service load balancers (nsg-loadbalancers-int.tf); OKE adds listener rules per Service.
        *(
            r
            for protocol in (TCP, UDP)
            for r in (
                Rule(lbs, "EGRESS", workers, protocol, NODE_PORTS, "load balancers to node ports"),
                Rule(workers, "INGRESS", lbs, protocol, NODE_PORTS, "load balancers to node ports"),
            )
        ),
        Rule(lbs, "EGRESS", workers, TCP, HEALTH_CHECK, "load balancer health checks"),
        Rule(workers, "INGRESS", lbs, TCP, HEALTH_CHECK, "load balancer health checks"),
        Rule(lbs, "EGRESS", workers, ICMP, None, "path discovery"),
    ]
    if vcn_native:
        # Pods (nsg-pods.tf), and what the other groups allow to and from them.
        rules += [
            Rule(api, "INGRESS", pods, TCP, KUBE_API, "pods to kube-apiserver"),
            Rule(api, "INGRESS", pods, TCP, OKE_CONTROL, "pods to the OKE control plane"),
            Rule(api, "EGRESS", pods, TCP, None, "control plane to pods (webhooks)"),
            Rule(pods, "INGRESS", api, ALL, None, "control plane to pods (webhooks)"),
            Rule(pods, "EGRESS", SERVICES, TCP, None, "pods to Oracle services"),
            *_both_ways(pods, pods, ALL, "pod to pod"),
            Rule(pods, "EGRESS", api, TCP, KUBE_API, "pods to kube-apiserver"),
            Rule(pods, "EGRESS", api, TCP, OKE_CONTROL, "pods to the OKE control plane"),
            *_both_ways(pods, workers, ALL, "pods to nodes"),
            *_both_ways(workers, pods, ALL, "nodes to pods"),
            Rule(pods, "EGRESS", ANYWHERE, ICMP, None, "path discovery"),
            Rule(pods, "INGRESS", vcn_cidr, ICMP, None, "path discovery"),
            *_both_ways(lbs, pods, ALL, "load balancers to pods"),
            Rule(pods, "EGRESS", lbs, ALL, None, "pods to load balancers"),
            Rule(pods, "EGRESS", ANYWHERE, ALL, None, "pods to the internet through NAT"),
        ]
    return rules


@dataclass(frozen=True)
class OkeNetworkArgs:
    compartment_id: str
    """Compartment of every network resource."""
    name: str
    """Prefix of every display name."""
    vcn_cidr: str
    """Range of the VCN."""
    api_subnet_cidr: str
    """Kubernetes API endpoint subnet."""
    load_balancer_subnet_cidr: str
    """Service load balancer subnet."""
    workers_subnet_cidr: str
    """Primary VNIC subnet of every node."""
    pods_subnet_cidr: str | None
    """None with the flannel CNI: no pod subnet, no pod NSG."""
    api_allowed_cidrs: list[str] = field(default_factory=list)
    """Ranges outside the VCN that may reach the API endpoint."""
    ssh_allowed_cidrs: list[str] = field(default_factory=list)
    """Ranges that may SSH to the nodes."""


@dataclass(frozen=True)
class ExistingOkeNetworkArgs:
    """An existing VCN and subnets: only the NSGs are created, in that VCN."""

    compartment_id: str
    """Compartment of the NSGs."""
    name: str
    """Prefix of every display name."""
    vcn_id: str
    """The existing VCN."""
    vcn_cidr: str
    """Its range (the NSG rules' VCN source)."""
    api_subnet_id: str
    """Subnet of the Kubernetes API endpoint."""
    load_balancer_subnet_id: str
    """Subnet of service load balancers."""
    workers_subnet_id: str
    """Primary VNIC subnet of every node."""
    pods_subnet_id: str | None
    """Pod subnet; None with the flannel CNI."""
    api_allowed_cidrs: list[str] = field(default_factory=list)
    """Ranges outside the VCN that may reach the API endpoint."""
    ssh_allowed_cidrs: list[str] = field(default_factory=list)
    """Ranges that may SSH to the nodes."""


class Network(pulumi.ComponentResource):
    """The VCN of an OKE cluster (or an existing one) and the NSGs of its parts."""

    vcn_id: pulumi.Output[str]
    api_subnet_id: pulumi.Output[str]
    load_balancer_subnet_id: pulumi.Output[str]
    workers_subnet_id: pulumi.Output[str]
    pods_subnet_id: pulumi.Output[str] | None
    nsg_ids: dict[Nsg, pulumi.Output[str]]

    def __init__(
        self,
        name: str,
        args: OkeNetworkArgs | ExistingOkeNetworkArgs,
        opts: pulumi.ResourceOptions | None = None,
    ):
        super().__init__("gpu-fabric:oke:Network", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        if isinstance(args, ExistingOkeNetworkArgs):
            self.vcn_id = pulumi.Output.from_input(args.vcn_id)
            self.api_subnet_id = pulumi.Output.from_input(args.api_subnet_id)
            self.load_balancer_subnet_id = pulumi.Output.from_input(args.load_balancer_subnet_id)
            self.workers_subnet_id = pulumi.Output.from_input(args.workers_subnet_id)
            self.pods_subnet_id = (
                pulumi.Output.from_input(args.pods_subnet_id) if args.pods_subnet_id else None
            )
        else:
            self._create_vcn(name, args, child)
        vcn_native = self.pods_subnet_id is not None
        self.nsg_ids = self._security_groups(name, args, vcn_native, child)
        self.register_outputs({"vcn_id": self.vcn_id})

    def _create_vcn(self, name: str, args: OkeNetworkArgs, child: pulumi.ResourceOptions) -> None:
        vcn = oci.core.Vcn(
            f"{name}-vcn",
            compartment_id=args.compartment_id,
            cidr_blocks=[args.vcn_cidr],
            display_name=f"{args.name}-vcn",
            dns_label=_dns_label(args.name),
            opts=child,
        )
        self.vcn_id = vcn.id
        # OCI attaches the VCN's default security list to every subnet, and it admits SSH from
        # 0.0.0.0/0; security lists and NSGs add up, so it is emptied: the NSGs do the filtering.
        oci.core.DefaultSecurityList(
            f"{name}-default-security-list",
            manage_default_resource_id=vcn.default_security_list_id,
            compartment_id=args.compartment_id,
            display_name=f"{args.name}-default (empty: NSGs filter)",
            ingress_security_rules=[],
            egress_security_rules=[],
            opts=child,
        )
        in_vcn: _InVcn = {"compartment_id": args.compartment_id, "vcn_id": vcn.id}
        nat = oci.core.NatGateway(
            f"{name}-nat", display_name=f"{args.name}-nat", opts=child, **in_vcn
        )
        all_services = _all_services()
        service_gateway = oci.core.ServiceGateway(
            f"{name}-sgw",
            display_name=f"{args.name}-sgw",
            services=[{"service_id": all_services.id}],
            opts=child,
            **in_vcn,
        )
        routes = oci.core.RouteTable(
            f"{name}-private-routes",
            display_name=f"{args.name}-private",
            route_rules=[
                {
                    "network_entity_id": nat.id,
                    "destination": ANYWHERE,
                    "destination_type": "CIDR_BLOCK",
                    "description": "internet through NAT",
                },
                {
                    "network_entity_id": service_gateway.id,
                    "destination": all_services.cidr_block,
                    "destination_type": "SERVICE_CIDR_BLOCK",
                    "description": "Oracle services through the service gateway",
                },
            ],
            opts=child,
            **in_vcn,
        )

        def subnet(part: str, cidr: str) -> pulumi.Output[str]:
            return oci.core.Subnet(
                f"{name}-{part}",
                cidr_block=cidr,
                display_name=f"{args.name}-{part}",
                dns_label=part.replace("-", "")[:15],
                prohibit_public_ip_on_vnic=True,
                route_table_id=routes.id,
                opts=child,
                **in_vcn,
            ).id

        self.api_subnet_id = subnet("api", args.api_subnet_cidr)
        self.load_balancer_subnet_id = subnet("lb", args.load_balancer_subnet_cidr)
        self.workers_subnet_id = subnet("workers", args.workers_subnet_cidr)
        self.pods_subnet_id = (
            subnet("pods", args.pods_subnet_cidr) if args.pods_subnet_cidr else None
        )

    def _security_groups(
        self, name, args, vcn_native: bool, child
    ) -> dict[Nsg, pulumi.Output[str]]:
        groups = {
            nsg: oci.core.NetworkSecurityGroup(
                f"{name}-{nsg.value}-nsg",
                compartment_id=args.compartment_id,
                vcn_id=self.vcn_id,
                display_name=f"{args.name}-{nsg.value}",
                opts=child,
            ).id
            for nsg in Nsg
            if vcn_native or nsg is not Nsg.PODS
        }
        services_cidr = _all_services().cidr_block
        rules = security_rules(
            args.vcn_cidr, vcn_native, args.api_allowed_cidrs, args.ssh_allowed_cidrs
        )
        for rule in rules:
            peer_type, peer = _peer(rule.peer, groups, services_cidr)
            ends = (
                {"source": peer, "source_type": peer_type}
                if rule.direction == "INGRESS"
                else {"destination": peer, "destination_type": peer_type}
            )
            oci.core.NetworkSecurityGroupSecurityRule(
                f"{name}-{rule.key}",
                network_security_group_id=groups[rule.nsg],
                direction=rule.direction,
                protocol=rule.protocol,
                description=rule.description,
                stateless=False,
                tcp_options=_ports(rule) if rule.protocol == TCP else None,
                udp_options=_ports(rule) if rule.protocol == UDP else None,
                icmp_options=PATH_DISCOVERY if rule.protocol == ICMP else None,
                opts=child,
                **ends,
            )
        return groups


def _all_services() -> pulumi.Output:
    """The region's all-services entry of the Oracle Services Network (id, cidr_block)."""
    return oci.core.get_services_output(filters=[ALL_SERVICES_FILTER]).services[0]


def _ports(rule: Rule) -> oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsArgsDict | None:
    if rule.ports is None:
        return None
    return {"destination_port_range": {"min": rule.ports[0], "max": rule.ports[1]}}


def _peer(peer, groups, services_cidr) -> tuple[str, pulumi.Input[str]]:
    if isinstance(peer, Nsg):
        return "NETWORK_SECURITY_GROUP", groups[peer]
    if peer == SERVICES:
        return "SERVICE_CIDR_BLOCK", services_cidr
    return "CIDR_BLOCK", peer


def _dns_label(name: str) -> str:
    """A VCN DNS label: letters and digits, at most 15 (the cluster name starts with a letter)."""
    return "".join(c for c in name if c.isalnum())[:15]
