"""Cloud Storage buckets as training volumes: created or existing, mounted through GKE's Cloud
Storage FUSE CSI driver, readable or writable by the training namespaces only."""
