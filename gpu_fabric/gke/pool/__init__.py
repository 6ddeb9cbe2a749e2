"""A GKE GPU node pool: its stack config, rules, layer args and node pool, side by side."""
