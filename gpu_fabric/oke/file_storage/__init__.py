"""OCI File Storage (FSS) as training volumes: a file system, mount target and export the stack
creates (as oci-hpc-oke does by default), or an existing export, mounted through OKE's FSS CSI
driver."""
