"""An OKE GPU cluster with DRANET and DRA GPUs (seed 002), as one component wired in order.

What waits for what, and why (everything else runs in parallel):
- the VCN parts wait for the VCN (and the route table for its gateways); the NSGs for the VCN;
- the cluster waits for its VCN, API subnet, API NSG and load balancer subnet; the system pool for
  the cluster, the workers and pods subnets and their NSGs;
- the dynamic group and the compute cluster wait for nothing; the join policy for the cluster id;
- each GPU node waits for the compute cluster, its subnets and NSGs, the cluster (endpoint and CA in
  its cloud-init) and the join policy (it cannot join before the policy lets it);
- in the cluster, everything waits for the cluster's provider only: DaemonSets need no nodes, and a
  ResourceClaimTemplate may name a DeviceClass that is not there yet; the claim templates and the
  ConfigMap wait for the namespace they live in;
- the optional NCCL jobs wait for the MPIJob CRD (a gate) and the claim templates they use.
"""

from __future__ import annotations

import pulumi

from ..catalog import catalog
from .claims import ClaimTemplates, plan_claim
from .cluster import OkeCluster, OkeClusterArgs, SystemPoolArgs, ca_certificate
from .config import Cni, OkeDranetConfig
from .dranet import Chart, DraDrivers, DraDriversArgs
from .nccl_jobs import NcclJobs, NcclJobsArgs
from .network import ExistingOkeNetworkArgs, Nsg, OkeNetwork, OkeNetworkArgs
from .rdma_nodes import RdmaNodes, RdmaNodesArgs


def _network_args(cfg: OkeDranetConfig) -> OkeNetworkArgs | ExistingOkeNetworkArgs:
    net, existing = cfg.network, cfg.network.existing
    common = {
        "compartment_id": cfg.compartment_id,
        "name": cfg.oke.name,
        "api_allowed_cidrs": net.api_allowed_cidrs,
        "ssh_allowed_cidrs": net.ssh_allowed_cidrs,
    }
    if existing is not None:
        return ExistingOkeNetworkArgs(
            vcn_id=existing.vcn_id,
            vcn_cidr=existing.vcn_cidr,
            api_subnet_id=existing.api_subnet_id,
            load_balancer_subnet_id=existing.load_balancer_subnet_id,
            workers_subnet_id=existing.workers_subnet_id,
            pods_subnet_id=existing.pods_subnet_id if cfg.oke.cni is Cni.VCN_NATIVE else None,
            **common,
        )
    return OkeNetworkArgs(
        vcn_cidr=net.vcn_cidr,
        api_subnet_cidr=net.api_subnet_cidr,
        load_balancer_subnet_cidr=net.load_balancer_subnet_cidr,
        workers_subnet_cidr=net.workers_subnet_cidr,
        pods_subnet_cidr=net.pods_subnet_cidr if cfg.oke.cni is Cni.VCN_NATIVE else None,
        **common,
    )


class GpuCluster(pulumi.ComponentResource):
    """VCN, ENHANCED OKE cluster, RDMA GPU nodes, both DRA drivers and the claim templates."""

    network: OkeNetwork
    cluster: OkeCluster
    rdma_nodes: RdmaNodes
    drivers: DraDrivers
    claim_templates: ClaimTemplates

    def __init__(self, name: str, cfg: OkeDranetConfig, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-fabric:oke:GpuCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        oke, nodes = cfg.oke, cfg.gpu_nodes
        self.network = OkeNetwork(f"{name}-network", _network_args(cfg), child)
        net = self.network
        pods_nsg = net.nsg_ids.get(Nsg.PODS)

        self.cluster = OkeCluster(
            name,
            OkeClusterArgs(
                compartment_id=cfg.compartment_id,
                name=oke.name,
                kubernetes_version=oke.kubernetes_version,
                vcn_id=net.vcn_id,
                api_subnet_id=net.api_subnet_id,
                api_nsg_id=net.nsg_ids[Nsg.API],
                load_balancer_subnet_id=net.load_balancer_subnet_id,
                cni=oke.cni.value,
                pods_cidr=oke.effective_pods_cidr,
                services_cidr=oke.services_cidr,
                public_endpoint=oke.public_endpoint,
                protect=oke.deletion_protection,
                system_pool=SystemPoolArgs(
                    shape=oke.system_pool.shape,
                    ocpus=oke.system_pool.ocpus,
                    memory_gbs=oke.system_pool.memory_gbs,
                    node_count=oke.system_pool.node_count,
                    image_id=oke.system_pool.image_id,
                    availability_domain=nodes.availability_domain,
                    workers_subnet_id=net.workers_subnet_id,
                    workers_nsg_id=net.nsg_ids[Nsg.WORKERS],
                    pods_subnet_id=net.pods_subnet_id,
                    pods_nsg_id=pods_nsg,
                    max_pods_per_node=oke.max_pods_per_node,
                ),
            ),
            child,
        )

        self.rdma_nodes = RdmaNodes(
            f"{name}-gpu",
            RdmaNodesArgs(
                tenancy_id=cfg.tenancy_ocid,
                compartment_id=cfg.compartment_id,
                name=oke.name,
                shape=nodes.shape,
                count=nodes.count,
                availability_domain=nodes.availability_domain,
                image_id=nodes.image_id,
                boot_volume_size_gbs=nodes.boot_volume_size_gbs,
                kubernetes_version=oke.kubernetes_version,
                cluster_id=self.cluster.cluster.id,
                api_server_host=self.cluster.api_server_host,
                # The CA certificate is public (every client gets it); only the kubeconfig that
                # carries it is kept secret, so the nodes' metadata need not be.
                ca_certificate_b64=pulumi.Output.unsecret(
                    self.cluster.kubeconfig.apply(ca_certificate)
                ),
                workers_subnet_id=net.workers_subnet_id,
                workers_nsg_id=net.nsg_ids[Nsg.WORKERS],
                pods_subnet_id=net.pods_subnet_id,
                pods_nsg_id=pods_nsg,
                max_pods_per_node=oke.max_pods_per_node,
                ssh_public_key=nodes.ssh_public_key,
                join_tag=(nodes.join_tag.namespace, nodes.join_tag.key) if nodes.join_tag else None,
            ),
            child,
        )

        on_cluster = pulumi.ResourceOptions(parent=self, providers=[self.cluster.provider])
        charts = catalog().oke
        self.drivers = DraDrivers(
            f"{name}-dra",
            DraDriversArgs(
                shape=nodes.shape,
                dranet=Chart(charts.dranet.chart, cfg.dranet_version, charts.dranet.namespace),
                dranet_image_tag=cfg.dranet_image_tag,
                child_cidr=cfg.dranet.child_cidr,
                dra_gpu_driver=Chart(
                    charts.dra_gpu_driver.chart,
                    cfg.dra_gpu_driver_version,
                    charts.dra_gpu_driver.namespace,
                ),
            ),
            on_cluster,
        )
        plans = [plan_claim(claim, cfg.shape, nodes.shape) for claim in cfg.claims]
        namespace = self.drivers.namespace.metadata.name
        self.claim_templates = ClaimTemplates(f"{name}-claims", plans, namespace, on_cluster)
        if cfg.nccl_claims:
            nccl_names = {c.name for c in cfg.nccl_claims}
            NcclJobs(
                f"{name}-nccl",
                NcclJobsArgs(
                    plans=[p for p in plans if p.name in nccl_names],
                    node_gpus=cfg.shape.gpu_count,
                    workers=nodes.count,
                    shape=nodes.shape,
                    image=cfg.nccl_tests_image,
                    namespace=namespace,
                    kubeconfig=self.cluster.kubeconfig,
                    cluster_id=self.cluster.cluster.id,
                    claim_templates=self.claim_templates.templates,
                ),
                on_cluster,
            )
        self.register_outputs({})
