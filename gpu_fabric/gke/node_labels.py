"""The labels GKE puts on its nodes, which selectors, flavors and Topology levels name."""

NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"
"""The label GKE gives every node, set to its node pool's name (GKE docs, "About node pool
labels": automatically applied labels)."""
ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
"""The label GKE gives a GPU node, set to its accelerator type (GKE docs, "About GPUs in GKE")."""
GCE_TOPOLOGY_LABELS = "cloud.google.com/gce-topology-"
"""The prefix of GKE's topology labels (`-block`, `-subblock`, `-host`: GKE docs, "Schedule GKE
workloads with Topology Aware Scheduling"), on nodes whose capacity exposes its topology."""
SCHEDULED_MAINTENANCE_LABEL = "cloud.google.com/scheduled-maintenance-time"
"""The label GKE puts on a GPU node whose host maintenance is scheduled, set to its start (Unix
time; GKE 1.31.1-gke.2008000+: GKE docs, "View maintenance events"; AI Hypercomputer docs,
"Manage GKE clusters")."""
CAPACITY_LABELS = {
    "flex-start": {"cloud.google.com/gke-flex-start": "true"},
    "spot": {"cloud.google.com/gke-spot": "true"},
}
"""The label GKE gives a node of a flex-start or a Spot pool (cluster-toolkit's
examples/gke-consumption-options/dws-flex-start, gke-node-pool main.tf; XPK `capacity.py` node
selectors): a flavor of such a pool names it, so its jobs land on that capacity only."""
QUEUED_TAINT = "cloud.google.com/gke-queued"
"""The taint GKE puts on the nodes of a queued-provisioning pool (cluster-toolkit's gke-node-pool
`enable_queued_provisioning`), which pods admitted there tolerate."""
QUEUED_PROVISIONING_CLASS = "queued-provisioning.gke.io"
"""GKE's ProvisioningRequest class of queued provisioning (cluster-toolkit's dws-queues.yaml.tftpl;
XPK kueue_config.yaml.j2)."""
