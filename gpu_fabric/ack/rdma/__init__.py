"""RDMA on the Lingjun nodes: the device plugin add-on's stack config, and the RDMA pods (test and
benchmark)."""
