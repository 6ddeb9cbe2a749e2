"""The GKE cluster: its stack config, args and resources (the cluster, its system pool, the nodes'
service account)."""
