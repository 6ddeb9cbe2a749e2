"""The labels GKE puts on its nodes, which selectors, flavors and Topology levels name."""

NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"
"""The label GKE gives every node, set to its node pool's name (GKE docs, "About node pool
labels": automatically applied labels)."""
ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
"""The label GKE gives a GPU node, set to its accelerator type (GKE docs, "About GPUs in GKE")."""
GCE_TOPOLOGY_LABELS = "cloud.google.com/gce-topology-"
"""The prefix of GKE's topology labels (`-block`, `-subblock`, `-host`: GKE docs, "Schedule GKE
workloads with Topology Aware Scheduling"), on nodes whose capacity exposes its topology."""
