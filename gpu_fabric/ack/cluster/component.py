"""The ACK managed Pro cluster, its ECS pool for system components, and its Kubernetes provider."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_alicloud.cs as cs
import pulumi_kubernetes as k8s
import yaml

from ...layers import result_field

# The kubeconfig is ACK's default (not temporary) user credential. A temporary one
# (`temporary_duration_minutes`, 15 to 4320) is a fresh client certificate on every call, so
# every preview showed a provider change and a destroy more than 3 days after the last `up` failed
# with an expired certificate. Without the argument ACK returns the user's
# kubeconfig, valid 3 years and the same on every call until it is renewed or revoked (Alibaba,
# DescribeClusterUserKubeconfig: "the default validity period of a kubeconfig file is 3 years";
# renewal and revocation: docs/ack.md, "Kubeconfig rotation"). pulumi-alicloud 4.0.0 has no
# credential resource (only the data source `cs.get_cluster_credential`), so this is the
# longest-lived, stable option.
# The only runtime of Lingjun nodes (Alibaba, "Create and manage a Lingjun node pool"); the pools
# say so too.
RUNTIME = "containerd"


@dataclass(frozen=True)
class SystemPoolArgs:
    instance_types: list[str]
    """ECS instance types of the system nodes, first choice first."""
    node_count: int
    """System nodes."""
    key_name: str
    """ECS key pair of the system nodes."""
    system_disk_category: str
    """System disk category (`cloud_essd`)."""
    system_disk_size: int
    """System disk size, GiB."""
    vswitch_ids: Sequence[pulumi.Input[str]]
    """The node vSwitches the system nodes go in."""


@dataclass(frozen=True)
class AckClusterArgs:
    name: str
    """The cluster's name (pass it always: the provider auto-names otherwise)."""
    cluster_spec: str
    """The ACK managed cluster edition (`ack.pro.small`)."""
    kubernetes_version: pulumi.Input[str]
    """ACK Kubernetes version (`1.33.3-aliyun.1`)."""
    version_moves: bool
    """The version is a minor's newest, read on each run: set at creation, then left to ACK's
    upgrades (a newer patch does not upgrade the cluster; an upgrade is not rolled back)."""
    vswitch_ids: Sequence[pulumi.Input[str]]
    """Node vSwitches of the control plane's endpoints and the nodes."""
    pod_vswitch_ids: Sequence[pulumi.Input[str]]
    """Terway pod vSwitches."""
    service_cidr: str
    """Service range, outside the VPC."""
    ip_stack: str
    """`ipv4` (Lingjun node pools refuse dual stack)."""
    proxy_mode: str
    """kube-proxy mode: `ipvs` or `iptables`."""
    addons: list[str]
    """Names of the cluster add-ons installed with the cluster."""
    public_endpoint: bool
    """An internet SLB for the API server."""
    deletion_protection: bool
    """ACK's own deletion protection and Pulumi `protect`."""
    system_pool: SystemPoolArgs
    """The ordinary ECS node pool of the system components."""


def _at_intranet_endpoint(kubeconfig: str, connections: Sequence[Any]) -> str:
    """The credential's kubeconfig, its server the cluster's intranet endpoint.

    The provider asks DescribeClusterUserKubeconfig with `PrivateIpAddress: false` and offers no
    other (terraform-provider-alicloud service_alicloud_cs.go,
    `DescribeClusterKubeConfigWithExpiration`): the internet endpoint's kubeconfig. The API
    server here is private only, and the fabric stack runs inside the VPC: its kubeconfig names
    `connections.api_server_intranet`, the endpoint the API's `PrivateIpAddress: true` answer
    names (same CA and client certificate)."""
    intranet = next((result_field(c, "api_server_intranet") for c in connections or []), None)
    if not intranet:
        # No intranet endpoint reported (not seen; the API names one for every cluster): the
        # credential as the provider returns it.
        return kubeconfig
    document = yaml.safe_load(kubeconfig)
    for entry in document.get("clusters") or []:
        entry["cluster"]["server"] = intranet
    return yaml.safe_dump(document, sort_keys=False)


class Cluster(pulumi.ComponentResource):
    """The cluster, an ECS node pool for system components, and a Kubernetes provider for it.

    The kubeconfig comes from `cs.get_cluster_credential` (pulumi-alicloud has no credential
    resource): the user's 3-year client certificate, so a Pulumi secret, the same on every run.
    A renewed or revoked one must not replace the provider (and every object it manages): the
    provider has a `cluster_identifier`.
    """

    cluster: cs.ManagedKubernetes
    kubeconfig: pulumi.Output[str]
    system_pool: cs.NodePool
    provider: k8s.Provider

    def __init__(self, name: str, args: AckClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-fabric:ack:Cluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.cluster = cs.ManagedKubernetes(
            name,
            name=args.name,
            cluster_spec=args.cluster_spec,
            version=args.kubernetes_version,
            vswitch_ids=args.vswitch_ids,
            pod_vswitch_ids=args.pod_vswitch_ids,
            service_cidr=args.service_cidr,
            ip_stack=args.ip_stack,
            proxy_mode=args.proxy_mode,
            addons=[{"name": addon} for addon in args.addons],
            slb_internet_enabled=args.public_endpoint,
            deletion_protection=args.deletion_protection,
            new_nat_gateway=True,
            # The cluster's certificate attributes are deprecated; the credential comes below.
            skip_set_certificate_authority=True,
            opts=pulumi.ResourceOptions(
                parent=self,
                protect=args.deletion_protection,
                ignore_changes=["version"] if args.version_moves else [],
            ),
        )
        credential = cs.get_cluster_credential_output(cluster_id=self.cluster.id)
        self.kubeconfig = pulumi.Output.secret(
            # No temporary_duration_minutes: see the comment at the top of this module.
            pulumi.Output.all(credential.kube_config, self.cluster.connections).apply(
                lambda parts: _at_intranet_endpoint(parts[0], parts[1])
            )
        )
        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.kubeconfig,
            cluster_identifier=self.cluster.id,
            opts=child,
        )
        pool = args.system_pool
        self.system_pool = cs.NodePool(
            f"{name}-system",
            cluster_id=self.cluster.id,
            node_pool_name=f"{args.name}-system",
            vswitch_ids=pool.vswitch_ids,
            instance_types=pool.instance_types,
            desired_size=str(pool.node_count),  # a string in the provider (TF TypeString)
            runtime_name=RUNTIME,
            key_name=pool.key_name,
            system_disk_category=pool.system_disk_category,
            system_disk_size=pool.system_disk_size,
            opts=child,
        )
        self.register_outputs({"kubeconfig": self.kubeconfig})
