"""Managed Lustre as training volumes: an instance the stack creates (with the VPC's Private
Service Access and the Lustre port opened to the nodes) or an existing one, mounted through GKE's
Managed Lustre CSI driver."""
