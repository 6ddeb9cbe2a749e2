"""The RDMA GPU nodes: their stack config, instances and join files, shape limits, and the wait
for them."""
