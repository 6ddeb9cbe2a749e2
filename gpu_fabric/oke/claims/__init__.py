"""The claims that pair GPUs and rails per PCIe root: their stack config, plan, objects and NCCL
jobs."""
