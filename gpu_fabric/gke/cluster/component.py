"""The GKE Standard cluster with multi-networking, its node service account and its k8s provider."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s
import yaml

from ...versions import GKE_VERSION, Version, below
from ..names import node_account_id
from .config import NODE_ACCOUNT_ROLES, SYSTEM_POOL_NAME, ReleaseChannel

OAUTH_SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]

# Access is granted by IAM on the nodes' account (`NODE_ACCOUNT_ROLES`), so the broad OAuth scope
# above is the recommended pairing.

SHIELDED_INSTANCE: gcp.container.ClusterNodeConfigShieldedInstanceConfigArgsDict = {
    "enable_secure_boot": True,
    "enable_integrity_monitoring": True,
}


POOL_VERSION_MOVED_BY_GKE = ["version"]
"""A pool's `version` is what its nodes run (the provider reads it back): once GKE upgrades them
(at the minor's end of support, even with auto-upgrade off; in a channel, any time), the next
`pulumi up` would try to roll the pool back to the stack's version and fail. It is set at
creation and then ignored, as cluster-toolkit's gke-node-pool sets none at all: upgrade pools with
`gcloud container node-pools upgrade` (GKE's surge settings apply)."""

MAINTENANCE_WINDOW_START = "09:00"
"""cluster-toolkit gke-cluster's `maintenance_start_time` default (GMT)."""
EXCLUSION_START = "2025-12-01T00:00:00Z"
"""cluster-toolkit's GPU blueprints' exclusion start (examples/gke-a3-ultragpu at 10470803)."""


def in_a_channel(release_channel: str) -> bool:
    return release_channel != ReleaseChannel.UNSPECIFIED.value


def moved_by_gke(release_channel: str, version_moves: bool = False) -> list[str]:
    """The cluster's inputs that move without the stack: in a channel GKE upgrades the control
    plane past `minMasterVersion`, and a minor's newest patch changes with GKE's releases, so it
    is then a creation floor (cluster-toolkit's gke-cluster ignores it the same way). A pinned
    full version without a channel stays managed: changing `gke.version` upgrades the control
    plane."""
    return ["minMasterVersion"] if in_a_channel(release_channel) or version_moves else []


def maintenance_policy(
    release_channel: str,
) -> gcp.container.ClusterMaintenancePolicyArgsDict | None:
    """In a channel, cluster-toolkit's GPU blueprints' policy: a daily window, and an exclusion of
    minor and node upgrades until the minor's end of support (patches of the control plane
    still come)."""
    if not in_a_channel(release_channel):
        return None
    return {
        "daily_maintenance_window": {"start_time": MAINTENANCE_WINDOW_START},
        "maintenance_exclusions": [
            {
                "exclusion_name": "no-minor-or-node-upgrades",
                "start_time": EXCLUSION_START,
                "exclusion_options": {
                    "scope": "NO_MINOR_OR_NODE_UPGRADES",
                    "end_time_behavior": "UNTIL_END_OF_SUPPORT",
                },
            }
        ],
    }


@dataclass(frozen=True)
class AuthorizedNetworkArgs:
    cidr_block: str
    """A range that may reach the control plane."""
    display_name: str = ""
    """Its label in the console."""


@dataclass(frozen=True)
class ClusterArgs:
    name: str
    """Cluster name."""
    project: str
    """GCP project ID (for the workload pool and IAM)."""
    location: str
    """Region of the control plane."""
    version: pulumi.Input[str]
    """GKE version of the control plane and the system pool at creation."""
    network: pulumi.Input[str]
    """The primary VPC (name or self link)."""
    subnetwork: pulumi.Input[str]
    """The node subnet (name or self link)."""
    pods_range_name: pulumi.Input[str]
    """The subnet's Pod secondary range."""
    services_range_name: pulumi.Input[str]
    """The subnet's Service secondary range."""
    deletion_protection: bool
    """GKE deletion protection."""
    private_nodes: bool = True
    """Nodes without external addresses."""
    master_authorized_networks: list[AuthorizedNetworkArgs] | None = None
    """If set, the only ranges that reach the control-plane endpoint."""
    system_machine_type: str = "e2-standard-4"
    """Machine type of the CPU system pool."""
    system_node_count: int = 1
    """Per zone of the region."""
    max_pods_per_node: int | None = None
    """Default max pods per node of every pool (set at creation); None for GKE's default."""
    node_account_roles: Sequence[str] = NODE_ACCOUNT_ROLES
    """Project roles of the nodes' service account."""
    release_channel: str = ReleaseChannel.UNSPECIFIED.value
    """GKE's release channel; UNSPECIFIED: none (the version pinned, no auto-upgrade)."""
    monitoring_components: Sequence[str] | None = None
    """What GKE sends to Cloud Monitoring (`monitoring_components`; None: GKE's default)."""
    managed_prometheus: bool = True
    """Managed Service for Prometheus (managed collection)."""
    gcs_fuse_csi: bool = False
    """GKE's Cloud Storage FUSE CSI driver (off by default on Standard clusters)."""
    lustre_csi: bool = False
    """GKE's Managed Lustre CSI driver (off by default)."""
    filestore_csi: bool = False
    """GKE's Filestore CSI driver (off by default on Standard clusters)."""
    version_moves: bool = False
    """The version is a minor's newest patch, read on each run: it moves with GKE's releases,
    so after creation it is not applied again."""


JOBSET_METRICS_FROM = "1.32.1-gke.1357001"
"""GKE's first version that sends JobSet metrics (pulumi-gcp `ClusterMonitoringConfig`:
`JOBSET` needs 1.32.1-gke.1357001 or later)."""


def monitoring_components(version: Version, dcgm: bool) -> list[str]:
    """The system components (GKE requires them with any other), the GPUs' DCGM metrics, and the
    training jobs' JobSet metrics where GKE has them. Fewer than cluster-toolkit's gke-cluster
    default list (which adds pods, DaemonSets, Deployments, kubelet, cAdvisor...): each component
    is Cloud Monitoring ingestion a user pays for; add them in the console or a stack of your own
    if wanted."""
    components = ["SYSTEM_COMPONENTS"]
    if dcgm:
        components.append("DCGM")
    if not below(version, GKE_VERSION.parse(JOBSET_METRICS_FROM)):
        components.append("JOBSET")
    return components


def addons(args: ClusterArgs) -> gcp.container.ClusterAddonsConfigArgsDict:
    """The storage drivers the training volumes need, and only those: the rest of the add-ons
    keep GKE's defaults (pulumi-gcp `ClusterAddonsConfig`). Managed Lustre's legacy port is off
    (LNet on 988; GKE API `LustreCsiDriverConfig`: the legacy port is for older nodes only)."""
    config: gcp.container.ClusterAddonsConfigArgsDict = {}
    if args.gcs_fuse_csi:
        config["gcs_fuse_csi_driver_config"] = {"enabled": True}
    if args.lustre_csi:
        config["lustre_csi_driver_config"] = {"enabled": True}
    if args.filestore_csi:
        config["gcp_filestore_csi_driver_config"] = {"enabled": True}
    return config


def exec_kubeconfig(name: str, endpoint: str, ca_certificate: str) -> str:
    """A kubeconfig that authenticates with `gke-gcloud-auth-plugin`: it holds no credential."""
    context = {"cluster": name, "user": name}
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": name,
                    "cluster": {
                        "server": f"https://{endpoint}",
                        "certificate-authority-data": ca_certificate,
                    },
                }
            ],
            "contexts": [{"name": name, "context": context}],
            "current-context": name,
            "users": [
                {
                    "name": name,
                    "user": {
                        "exec": {
                            "apiVersion": "client.authentication.k8s.io/v1beta1",
                            "command": "gke-gcloud-auth-plugin",
                            "installHint": "Install gke-gcloud-auth-plugin: "
                            "gcloud components install gke-gcloud-auth-plugin",
                            "provideClusterInfo": True,
                        }
                    },
                }
            ],
        },
        sort_keys=False,
    )


class Cluster(pulumi.ComponentResource):
    """A multi-networking GKE Standard cluster (Dataplane V2, VPC-native, pinned version).

    GPUDirect-TCPX does not run on Autopilot, so only Standard is built. Multi-networking can only
    be set at creation. The default node pool is removed and replaced by a small CPU system pool;
    every node runs as a dedicated least-privilege service account.
    """

    cluster: gcp.container.Cluster
    """The GKE cluster."""
    node_service_account: pulumi.Output[str]
    """E-mail of the node service account."""
    node_account_grants: list[gcp.projects.IAMMember]
    """Role grants node pools wait for, so nodes can write logs from their first boot."""
    kubeconfig: pulumi.Output[str]
    """Exec-plugin kubeconfig (secret)."""
    provider: k8s.Provider
    """Kubernetes provider bound to this cluster."""

    def __init__(self, name: str, args: ClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-fabric:gke:Cluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        account = gcp.serviceaccount.Account(
            f"{name}-nodes",
            account_id=node_account_id(args.name),
            display_name=f"GKE nodes of {args.name} (gpu-fabric)",
            # Pools name the account by its e-mail, which the fixed ID decides: a replacement
            # cannot be created beside it (409 "already exists"), so it is deleted first.
            opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True),
        )
        self.node_account_grants = [
            gcp.projects.IAMMember(
                f"{name}-nodes-{role.split('/')[-1]}",
                project=args.project,
                role=role,
                member=account.member,
                opts=child,
            )
            for role in args.node_account_roles
        ]

        self.cluster = gcp.container.Cluster(
            name,
            name=args.name,
            location=args.location,
            network=args.network,
            subnetwork=args.subnetwork,
            networking_mode="VPC_NATIVE",
            ip_allocation_policy={
                "cluster_secondary_range_name": args.pods_range_name,
                "services_secondary_range_name": args.services_range_name,
            },
            datapath_provider="ADVANCED_DATAPATH",
            enable_multi_networking=True,
            min_master_version=args.version,
            # A pinned version without auto-upgrade (the GKE GPUDirect-TCPX guide:
            # --no-enable-autoupgrade) needs the cluster outside any release channel; in one,
            # GKE upgrades it except what the exclusion holds back (`maintenance_policy`).
            release_channel={"channel": args.release_channel},
            maintenance_policy=maintenance_policy(args.release_channel),
            remove_default_node_pool=True,
            initial_node_count=1,
            # The short-lived default pool still runs as the dedicated account, not as the
            # Compute Engine default (Editor) account.
            node_config={
                "service_account": account.email,
                "oauth_scopes": OAUTH_SCOPES,
                "shielded_instance_config": SHIELDED_INSTANCE,
            },
            enable_shielded_nodes=True,
            workload_identity_config={"workload_pool": f"{args.project}.svc.id.goog"},
            private_cluster_config=(
                {"enable_private_nodes": True, "enable_private_endpoint": False}
                if args.private_nodes
                else None
            ),
            master_authorized_networks_config=(
                {
                    "cidr_blocks": [
                        {"cidr_block": n.cidr_block, "display_name": n.display_name}
                        for n in args.master_authorized_networks
                    ]
                }
                if args.master_authorized_networks is not None
                else None
            ),
            deletion_protection=args.deletion_protection,
            default_max_pods_per_node=args.max_pods_per_node,
            monitoring_config=None
            if args.monitoring_components is None
            else {
                "enable_components": list(args.monitoring_components),
                "managed_prometheus": {"enabled": args.managed_prometheus},
            },
            # Set only when on: a stack without training buckets keeps GKE's add-on defaults,
            # which its state holds as they are.
            addons_config=addons(args) or None,
            # node_config only shapes the default pool, which is removed right after creation.
            # With deletion protection, Pulumi's `protect` too (as the OKE and ACK clusters): a
            # `pulumi destroy` or a replacement stops before it reaches GKE's own refusal.
            # It waits for the account's grants: the short-lived default pool's nodes run as the
            # account from their first boot, and a node without its role fails to report in.
            opts=pulumi.ResourceOptions(
                parent=self,
                ignore_changes=[
                    "nodeConfig",
                    *moved_by_gke(args.release_channel, args.version_moves),
                ],
                protect=args.deletion_protection,
                depends_on=self.node_account_grants,
            ),
        )

        gcp.container.NodePool(
            f"{name}-system",
            name=SYSTEM_POOL_NAME,
            cluster=self.cluster.id,
            location=args.location,
            version=args.version,
            node_count=args.system_node_count,
            management={"auto_upgrade": in_a_channel(args.release_channel), "auto_repair": True},
            node_config={
                "machine_type": args.system_machine_type,
                "image_type": "COS_CONTAINERD",
                "service_account": account.email,
                "oauth_scopes": OAUTH_SCOPES,
                "shielded_instance_config": SHIELDED_INSTANCE,
                "workload_metadata_config": {"mode": "GKE_METADATA"},
            },
            # Fixed name `system`: a replacement is deleted first (else 409 "already exists").
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=self.node_account_grants,
                delete_before_replace=True,
                ignore_changes=POOL_VERSION_MOVED_BY_GKE,
            ),
        )

        self.kubeconfig = pulumi.Output.secret(
            pulumi.Output.all(
                self.cluster.name,
                self.cluster.endpoint,
                self.cluster.master_auth.cluster_ca_certificate,
            ).apply(lambda parts: exec_kubeconfig(*parts))
        )
        # The provider is replaced only when the cluster is (cluster_identifier), not whenever
        # the engine cannot prove a computed kubeconfig unchanged: a replaced provider would
        # replace every object on it.
        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.kubeconfig,
            cluster_identifier=self.cluster.id,
            opts=child,
        )
        self.node_service_account = account.email
        self.register_outputs(
            {
                "cluster_id": self.cluster.id,
                "node_service_account": self.node_service_account,
                "kubeconfig": self.kubeconfig,
            }
        )
