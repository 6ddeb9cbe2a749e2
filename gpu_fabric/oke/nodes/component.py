"""Self-managed RDMA GPU nodes (BM.GPU.B4.8) in one compute cluster, joined to OKE by cloud-init.

Why self-managed: a managed OKE node pool can be placed in a compute cluster, but it has no
`agent_config`, so it cannot enable the two "Compute HPC RDMA" Oracle Cloud Agent plugins that
authenticate and configure the rails (pulumi-oci 5.5.0 `NodePoolArgs`; oci-hpc-oke only applies
them to self-managed nodes). `oci.core.Instance` sets them explicitly. Self-managed nodes join
through a dynamic group with the `{CLUSTER_JOIN}` permission, on an ENHANCED cluster.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import pulumi
import pulumi_oci as oci
import yaml

from ...nvidia import DEVICE_PLUGIN_DEPLOY_LABEL, GPU_PRESENT_LABEL, GPU_RESOURCE

NODE_FILES = Path(__file__).with_name("node")
RDMA_AGENT_PLUGINS = ["Compute HPC RDMA Authentication", "Compute HPC RDMA Auto-Configuration"]
# Optional plugins oci-hpc-oke also enables on its RDMA workers (terraform/oke-workers.tf).
RUN_COMMAND_PLUGIN = "Compute Instance Run Command"
RDMA_GPU_MONITORING_PLUGIN = "Compute RDMA GPU Monitoring"
TAG_DEFAULTS = ["Oracle-Tags.CreatedBy", "Oracle-Tags.CreatedOn"]
"""Defined tags OCI's default tag defaults add to every new resource of a tenancy (OCI docs,
"Managing Tag Defaults"): set by OCI, not by this stack, so not drift to undo."""
# Labels at join (the DRANET-on-OKE write-up): the GPUs come from the NVIDIA DRA driver, so both
# device plugins stay
# off: OKE's own on OKE GPU images, and the GPU Operator's. `nvidia.com/gpu.present` is what the
# DRA driver's kubelet plugin selects nodes by when NFD does not run.
NODE_LABELS = {
    "oci.oraclecloud.com/disable-gpu-device-plugin": "true",
    DEVICE_PLUGIN_DEPLOY_LABEL: "false",
    GPU_PRESENT_LABEL: "true",
}
# Only GPU pods land here: every pod of the write-up tolerates this taint.
NODE_TAINTS = [f"{GPU_RESOURCE}=present:NoSchedule"]
# kubelet's flag for them. The join script passes it on every path that takes arguments; an image
# that joins through its own oke-init.service reads it from the instance metadata key
# `kubelet-extra-args` (oci-hpc-oke terraform/oke-workers.tf, `node_metadata`).
TAINT_ARGS = f"--register-with-taints={','.join(NODE_TAINTS)}"


NVME_RAID_SCRIPT = "/usr/local/sbin/gpu-fabric-nvme-raid.sh"


def cloud_init(
    api_server_host: str,
    ca_certificate_b64: str,
    kubernetes_version: str,
    nvme_raid: int | None = None,
) -> str:
    """The nodes' cloud-config: CRI-O drop-ins and ib_core mode first, the local NVMe array
    (`nvme_raid`, a RAID level; None: none) next, then the join (which installs OKE's node package
    for `kubernetes_version` on an image that has no join tooling)."""
    labels = ",".join(f"{k}={v}" for k, v in NODE_LABELS.items())
    files = [
        ("/etc/crio/crio.conf.d/20-nri.conf", "20-nri.conf"),
        ("/etc/crio/crio.conf.d/11-default.conf", "11-default.conf"),
        ("/etc/crio/crio.conf.d/12-memlock.conf", "12-memlock.conf"),
        ("/etc/systemd/networkd.conf", "networkd.conf"),
        ("/etc/modprobe.d/ib_core.conf", "ib_core.conf"),
        ("/usr/local/sbin/gpu-fabric-join.sh", "join.sh"),
    ]
    if nvme_raid is not None:
        files.append((NVME_RAID_SCRIPT, "nvme-raid.sh"))
    write_files = [
        {
            "path": path,
            "content": (NODE_FILES / name).read_text(),
            "permissions": "0755" if name.endswith(".sh") else "0644",
        }
        for path, name in files
    ]
    write_files += [
        {"path": "/etc/oke/oke-apiserver", "content": api_server_host, "permissions": "0644"},
        {
            "path": "/etc/kubernetes/ca.crt",
            "encoding": "b64",
            "content": ca_certificate_b64,
            "permissions": "0644",
        },
    ]
    raid = [["bash", NVME_RAID_SCRIPT, str(nvme_raid)]] if nvme_raid is not None else []
    document = {
        "write_files": write_files,
        "runcmd": [
            *raid,
            [
                "bash",
                "/usr/local/sbin/gpu-fabric-join.sh",
                labels,
                ",".join(NODE_TAINTS),
                kubernetes_version,
            ],
        ],
    }
    return "#cloud-config\n" + yaml.safe_dump(document, sort_keys=False, width=1000)


def _encoded(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _matching_rule(args: RdmaNodesArgs) -> str:
    """The instances that may join: those of the compartment, and with a join tag only those that
    carry it with this cluster's name (a dynamic group cannot match a compute cluster)."""
    compartment = f"instance.compartment.id = '{args.compartment_id}'"
    if args.join_tag is None:
        return f"ALL {{{compartment}}}"
    namespace, key = args.join_tag
    return f"ALL {{{compartment}, tag.{namespace}.{key}.value = '{args.name}'}}"


def policy_scope(compartment_id: str) -> str:
    """Policies name the root compartment as `tenancy`, any other by OCID."""
    if compartment_id.startswith("ocid1.tenancy."):
        return "tenancy"
    return f"compartment id {compartment_id}"


# What the nodes do with their instance principal besides joining, as oci-hpc-oke grants its
# node dynamic group (terraform/iam.tf, `rule_templates`): publish the GPU and RDMA health
# metrics, and with VCN-native pod networking attach pod VNICs in the pod subnet and its NSG.
HEALTH_METRICS = ("gpu_infrastructure_health", "rdma_infrastructure_health")
POD_NETWORK_GRANTS = ("use vnics", "use subnets", "use network-security-groups")


def node_grants(scope: str, vcn_native: bool) -> list[str]:
    """The policy statements' verbs and scopes after `Allow dynamic-group <group>`."""
    grants = [
        f"use metrics in {scope} where target.metrics.namespace='{namespace}'"
        for namespace in HEALTH_METRICS
    ]
    if vcn_native:
        grants += [f"{verb} in {scope}" for verb in POD_NETWORK_GRANTS]
    return grants


@dataclass(frozen=True)
class RdmaNodesArgs:
    tenancy_id: str
    """The tenancy (home of the dynamic group)."""
    compartment_id: str
    """Compartment of the nodes and their compute cluster."""
    name: str
    """Prefix of display names."""
    shape: str
    """The GPU shape."""
    count: int
    """GPU nodes."""
    availability_domain: str
    """The AD of the compute cluster."""
    image_id: str
    """GPU image OCID (NVIDIA driver and DOCA-OFED)."""
    boot_volume_size_gbs: int
    """Boot volume, GB."""
    kubernetes_version: pulumi.Input[str]
    """The cluster's version, for the node's kubelet."""
    cluster_id: pulumi.Input[str]
    """The OKE cluster the nodes join."""
    api_server_host: pulumi.Input[str]
    """The API endpoint the nodes' bootstrap reaches."""
    ca_certificate_b64: pulumi.Input[str]
    """The cluster CA, base64, for the bootstrap."""
    workers_subnet_id: pulumi.Input[str]
    """Subnet of the nodes' primary VNICs."""
    workers_nsg_id: pulumi.Input[str]
    """NSG of the nodes' primary VNICs."""
    pods_subnet_id: pulumi.Input[str] | None
    """Pod subnet; None with the flannel CNI."""
    pods_nsg_id: pulumi.Input[str] | None
    """Pod NSG; None with the flannel CNI."""
    max_pods_per_node: int
    """VCN-native pods per node."""
    ssh_public_key: str | None = None
    """An authorized SSH key of the nodes, if any."""
    capacity_reservation_id: str | None = None
    """The compute capacity reservation the instances launch under (None: the default, if any)."""
    join_tag: tuple[str, str] | None = None
    """(namespace, key) of a defined tag set to the cluster name on every GPU node; the dynamic
    group then matches only instances that carry it."""
    optional_plugins: list[str] = field(default_factory=list)
    """Agent plugins enabled beside the two RDMA ones."""
    nvme_raid: int | None = None
    """Stripe the local NVMe drives at first boot, at this RAID level (None: off)."""
    depends_on: list[pulumi.Resource] = field(default_factory=list)
    """Resources the instances wait for besides the join policy (none by default)."""
    identity_provider: pulumi.ProviderResource | None = None
    """The home region's provider for the dynamic group and policy (None: the default one, when
    the stack's region is the home region)."""
    cluster: pulumi.Resource | None = None
    """The OKE cluster: replacing it replaces the nodes (their metadata holds its endpoint and
    CA)."""


def dynamic_group_name(cluster_name: str, compartment_id: str) -> str:
    """The join dynamic group's name, unique in the tenancy: OCI IAM names dynamic groups and
    policies once per tenancy (OCI docs, "Managing Dynamic Groups": "unique across all groups in
    your tenancy"), and one cluster name may be used in two compartments, so the compartment's
    OCID is hashed into it (the join policy's name starts with it)."""
    digest = hashlib.sha256(compartment_id.encode()).hexdigest()[:8]
    return f"{cluster_name}-{digest}-rdma-nodes"


class RdmaNodes(pulumi.ComponentResource):
    """The dynamic group and join policy, the compute cluster, and one instance per GPU node."""

    compute_cluster: oci.core.ComputeCluster
    instances: list[oci.core.Instance]

    def __init__(self, name: str, args: RdmaNodesArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-fabric:oke:RdmaNodes", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        # Identity resources are written in the tenancy's home region.
        identity = pulumi.ResourceOptions(parent=self, provider=args.identity_provider)
        group = oci.identity.DynamicGroup(
            f"{name}-group",
            compartment_id=args.tenancy_id,  # dynamic groups live in the tenancy
            name=dynamic_group_name(args.name, args.compartment_id),
            description=f"Instances of compartment {args.compartment_id} that may join {args.name}",
            matching_rule=_matching_rule(args),
            opts=identity,
        )
        scope = policy_scope(args.compartment_id)
        oci.identity.Policy(
            f"{name}-join",
            compartment_id=args.compartment_id,
            name=f"{dynamic_group_name(args.name, args.compartment_id)}-join",
            description=f"Self-managed RDMA nodes may join {args.name}, and only that cluster",
            statements=[
                pulumi.Output.concat(
                    "Allow dynamic-group ",
                    group.name,
                    " to {CLUSTER_JOIN} in ",
                    scope,
                    " where target.cluster.id = '",
                    args.cluster_id,
                    "'",
                ),
                *[
                    pulumi.Output.concat("Allow dynamic-group ", group.name, f" to {grant}")
                    for grant in node_grants(scope, vcn_native=args.pods_subnet_id is not None)
                ],
            ],
            opts=identity,
        )
        # The instances do not wait for the policy. OCI IAM is eventually consistent, and
        # terraform-oci-oke waits 30 s after its IAM writes before its workers (modules/iam/
        # await.tf); here the policy is written seconds after the cluster, while a bare-metal
        # instance takes minutes to reach RUNNING, and only then does cloud-init ask to join,
        # retrying `oke bootstrap` 20 times 15 s apart. Waiting would put the IAM writes on
        # `pulumi up`'s critical path for nothing; a node that still cannot join fails the fabric
        # layer's node wait, which names it.
        # Compute clusters are the RDMA placement unit of bare-metal GPU shapes: every instance
        # of one cluster shares the RDMA network, in one availability domain.
        self.compute_cluster = oci.core.ComputeCluster(
            f"{name}-compute-cluster",
            availability_domain=args.availability_domain,
            compartment_id=args.compartment_id,
            display_name=f"{args.name}-rdma",
            opts=child,
        )
        user_data = pulumi.Output.all(
            args.api_server_host, args.ca_certificate_b64, args.kubernetes_version
        ).apply(lambda parts: _encoded(cloud_init(parts[0], parts[1], parts[2], args.nvme_raid)))
        metadata = {
            "user_data": user_data,
            "apiserver_host": args.api_server_host,
            "cluster_ca_cert": args.ca_certificate_b64,
            "oke-k8version": args.kubernetes_version,
            "oke-initial-node-labels": ",".join(f"{k}={v}" for k, v in NODE_LABELS.items()),
            "kubelet-extra-args": TAINT_ARGS,
        }
        if args.pods_subnet_id is not None:
            assert args.pods_nsg_id is not None  # VCN-native pod networking has both
            metadata |= {
                "oke-native-pod-networking": "true",
                "oke-max-pods": str(args.max_pods_per_node),
                "pod-subnets": args.pods_subnet_id,
                "pod-nsgids": args.pods_nsg_id,
            }
        if args.ssh_public_key:
            metadata["ssh_authorized_keys"] = args.ssh_public_key
        # A node can only join once the policy lets it. Its metadata is read once, at first boot
        # (cloud-init joins the node then); a later change would only replace a bare-metal GPU
        # host for nothing, so it is ignored: roll nodes on purpose (README, "OKE specifics").
        # Except a new cluster: ignoring the metadata also freezes the API server address and CA
        # the node joined, so the nodes are replaced with the cluster (`replace_with`), old ones
        # first: a bare-metal GPU shape rarely has capacity for both. (terraform-oci-oke's
        # compute-cluster workers, modules/workers/computecluster.tf, ignore only
        # metadata["cluster_ca_cert"] and ["user_data"], so a new endpoint reaches their metadata,
        # but as an in-place update that a node joined at first boot never reads again.)
        # Also ignored, as terraform-oci-oke's compute-cluster workers ignore them
        # (modules/workers/computecluster.tf): `agentConfig`, which OCI does not update in place
        # ("Not updateable" there; a change would replace a bare-metal host), and the defined
        # tags OCI adds. The join tag stays managed: the dynamic group's rule requires it.
        tags_set_by_oci = (
            [f'definedTags["{tag}"]' for tag in TAG_DEFAULTS] if args.join_tag else ["definedTags"]
        )
        joinable = pulumi.ResourceOptions(
            parent=self,
            depends_on=args.depends_on,
            ignore_changes=["metadata", "agentConfig", *tags_set_by_oci],
            replace_with=[args.cluster] if args.cluster is not None else None,
            delete_before_replace=True,
        )
        vnic: oci.core.InstanceCreateVnicDetailsArgsDict = {
            "subnet_id": args.workers_subnet_id,
            "nsg_ids": [args.workers_nsg_id],
            # The SDK types it as text (the Terraform schema's); the provider takes the bool.
            "assign_public_ip": False,  # type: ignore[typeddict-item]
            "assign_private_dns_record": True,
        }
        self.instances = [
            oci.core.Instance(
                f"{name}-{index}",
                display_name=f"{args.name}-gpu-{index}",
                availability_domain=args.availability_domain,
                compartment_id=args.compartment_id,
                compute_cluster_id=self.compute_cluster.id,
                capacity_reservation_id=args.capacity_reservation_id,
                shape=args.shape,
                source_details={
                    "source_type": "image",
                    "source_id": args.image_id,
                    "boot_volume_size_in_gbs": str(args.boot_volume_size_gbs),
                },
                create_vnic_details=vnic,
                agent_config={
                    "are_all_plugins_disabled": False,
                    "is_management_disabled": False,
                    "is_monitoring_disabled": False,
                    "plugins_configs": [
                        {"name": plugin, "desired_state": "ENABLED"}
                        for plugin in [*RDMA_AGENT_PLUGINS, *args.optional_plugins]
                    ],
                },
                instance_options={"are_legacy_imds_endpoints_disabled": True},
                defined_tags=(
                    {f"{args.join_tag[0]}.{args.join_tag[1]}": args.name} if args.join_tag else None
                ),
                metadata=metadata,
                opts=joinable,
            )
            for index in range(args.count)
        ]
        self.register_outputs({})
