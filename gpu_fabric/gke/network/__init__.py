"""A GKE cluster's networks: the primary VPC and the GPU VPCs, with their config, rules, args and
resources side by side."""
