"""The Lingjun nodes: their stack config, node pool and the wait for them."""
