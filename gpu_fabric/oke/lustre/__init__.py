"""OCI File Storage with Lustre as training volumes: a file system the stack creates (with its
network security group, the Lustre port open to and from the workers only, and the service's
policy) or an existing one, mounted through OKE's Lustre CSI driver."""
