"""Filestore as training volumes: an instance the stack creates on the cluster's VPC, or an
existing one, mounted through GKE's Filestore CSI driver."""
