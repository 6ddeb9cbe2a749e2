"""The ENHANCED OKE cluster, its managed CPU pool for system components, and its k8s provider."""

from __future__ import annotations

import base64
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci
import yaml

from ..nodes.shape_limits import checked_shape_config

# Self-managed nodes (the RDMA GPU nodes) need an ENHANCED cluster (terraform-oci-oke: "An Enhanced
# cluster is required for self-managed worker pools").
CLUSTER_TYPE = "ENHANCED_CLUSTER"


@dataclass(frozen=True)
class SystemPoolArgs:
    shape: str
    """Shape of the system nodes (a flexible VM shape)."""
    ocpus: int
    """OCPUs per node."""
    memory_gbs: int
    """Memory per node, GB."""
    node_count: int
    """System nodes."""
    image_id: str
    """OKE node image OCID."""
    availability_domain: str
    """The availability domain of the nodes (the GPU nodes')."""
    workers_subnet_id: pulumi.Input[str]
    """Subnet of the nodes' primary VNICs."""
    workers_nsg_id: pulumi.Input[str]
    """NSG of the nodes' primary VNICs."""
    pods_subnet_id: pulumi.Input[str] | None
    """None with the flannel CNI."""
    pods_nsg_id: pulumi.Input[str] | None
    """NSG of the pods' VNICs; None with the flannel CNI."""
    max_pods_per_node: int
    """VCN-native pods per node."""


@dataclass(frozen=True)
class OkeClusterArgs:
    compartment_id: str
    """Compartment of the cluster and its pool."""
    name: str
    """Cluster name."""
    kubernetes_version: pulumi.Input[str]
    """`v`-prefixed, e.g. v1.36.1."""
    version_moves: bool
    """The version is a minor's newest patch, read on each run: set at creation, then left to
    OKE's upgrades (a newer patch does not upgrade the cluster; an upgrade is not rolled back)."""
    vcn_id: pulumi.Input[str]
    """The VCN of the cluster."""
    api_subnet_id: pulumi.Input[str]
    """Subnet of the Kubernetes API endpoint."""
    api_nsg_id: pulumi.Input[str]
    """NSG of the Kubernetes API endpoint."""
    load_balancer_subnet_id: pulumi.Input[str]
    """Subnet of service load balancers."""
    cni: str
    """OCI_VCN_IP_NATIVE or FLANNEL_OVERLAY."""
    pods_cidr: str | None
    """The overlay range (flannel only)."""
    services_cidr: str
    """Service range."""
    public_endpoint: bool
    """A public IP on the API endpoint."""
    protect: bool
    """Pulumi `protect`: the cluster survives an accidental `pulumi destroy`."""
    system_pool: SystemPoolArgs
    """The managed CPU node pool of the system components."""


def ca_certificate(kubeconfig: str) -> str:
    """The cluster CA (base64, as the kubeconfig holds it) of an OKE kubeconfig."""
    return yaml.safe_load(kubeconfig)["clusters"][0]["cluster"]["certificate-authority-data"]


def ca_certificate_pem(kubeconfig: str) -> str:
    return base64.b64decode(ca_certificate(kubeconfig)).decode()


class Cluster(pulumi.ComponentResource):
    """The cluster, a small managed CPU node pool, and a Kubernetes provider for it.

    The kubeconfig comes from OKE (`get_cluster_kube_config`) and authenticates through the OCI CLI
    (`oci ce cluster generate-token`), so it holds no credential; it is a secret all the same. The
    provider has a `cluster_identifier`, so a refreshed token never replaces it (and every object).
    """

    cluster: oci.containerengine.Cluster
    kubeconfig: pulumi.Output[str]
    api_server_host: pulumi.Output[str]
    """The endpoint's address without the port, what self-managed nodes join."""
    system_pool: oci.containerengine.NodePool
    provider: k8s.Provider

    def __init__(self, name: str, args: OkeClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-fabric:oke:Cluster", name, None, opts)
        self._moved_by_oke = ["kubernetesVersion"] if args.version_moves else []
        child = pulumi.ResourceOptions(parent=self)
        network_config: oci.containerengine.ClusterOptionsKubernetesNetworkConfigArgsDict = {
            "services_cidr": args.services_cidr
        }
        if args.pods_cidr:
            network_config["pods_cidr"] = args.pods_cidr
        self.cluster = oci.containerengine.Cluster(
            name,
            name=args.name,
            compartment_id=args.compartment_id,
            kubernetes_version=args.kubernetes_version,
            type=CLUSTER_TYPE,
            vcn_id=args.vcn_id,
            cluster_pod_network_options=[{"cni_type": args.cni}],
            endpoint_config={
                "subnet_id": args.api_subnet_id,
                "is_public_ip_enabled": args.public_endpoint,
                "nsg_ids": [args.api_nsg_id],
            },
            options={
                "kubernetes_network_config": network_config,
                "service_lb_subnet_ids": [args.load_balancer_subnet_id],
                "ip_families": ["IPv4"],
            },
            opts=pulumi.ResourceOptions(
                parent=self, protect=args.protect, ignore_changes=self._moved_by_oke
            ),
        )
        self.kubeconfig = pulumi.Output.secret(
            oci.containerengine.get_cluster_kube_config_output(
                cluster_id=self.cluster.id,
                endpoint="PUBLIC_ENDPOINT" if args.public_endpoint else "PRIVATE_ENDPOINT",
                token_version="2.0.0",
            ).content
        )
        # "10.140.0.2:6443" -> "10.140.0.2" (terraform-oci-oke splits it the same way). The SDK
        # types every endpoint as optional; an OKE cluster in a VCN always has the private one.
        self.api_server_host = self.cluster.endpoints.apply(
            lambda endpoints: endpoints[0].private_endpoint.rsplit(":", 1)[0]  # type: ignore[union-attr]
        )
        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.kubeconfig,
            cluster_identifier=self.cluster.id,
            opts=child,
        )
        self.system_pool = self._system_pool(
            f"{name}-system", args.system_pool, args.compartment_id
        )
        self.register_outputs({"kubeconfig": self.kubeconfig})

    def _system_pool(
        self, name: str, args: SystemPoolArgs, compartment_id: str
    ) -> oci.containerengine.NodePool:
        """The managed CPU pool for system components (CoreDNS, the DRA controllers)."""
        placement: oci.containerengine.NodePoolNodeConfigDetailsPlacementConfigArgsDict = {
            "availability_domain": args.availability_domain,
            "subnet_id": args.workers_subnet_id,
        }
        details: oci.containerengine.NodePoolNodeConfigDetailsArgsDict = {
            "size": args.node_count,
            "placement_configs": [placement],
            "nsg_ids": [args.workers_nsg_id],
        }
        if args.pods_subnet_id is not None:
            assert args.pods_nsg_id is not None  # VCN-native pod networking has both
            details["node_pool_pod_network_option_details"] = {
                "cni_type": "OCI_VCN_IP_NATIVE",
                "pod_subnet_ids": [args.pods_subnet_id],
                "pod_nsg_ids": [args.pods_nsg_id],
                "max_pods_per_node": args.max_pods_per_node,
            }
        else:
            details["node_pool_pod_network_option_details"] = {"cni_type": "FLANNEL_OVERLAY"}
        return oci.containerengine.NodePool(
            name,
            name=name,
            cluster_id=self.cluster.id,
            compartment_id=self.cluster.compartment_id,
            kubernetes_version=self.cluster.kubernetes_version,
            node_shape=args.shape,
            # Checked against the shape's limits at preview (shape_limits).
            node_shape_config=checked_shape_config(
                {
                    "shape": args.shape,
                    "ocpus": args.ocpus,
                    "memory_gbs": args.memory_gbs,
                    "availability_domain": args.availability_domain,
                },
                # The configured compartment, not the new cluster's output: known at the first
                # preview, so the check runs before anything is created.
                compartment_id,
                self,
            ),
            node_source_details={"source_type": "IMAGE", "image_id": args.image_id},
            node_config_details=details,
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=self._moved_by_oke),
        )
