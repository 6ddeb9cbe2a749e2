"""OKE's VCN: its stack config, rules and resources side by side."""
