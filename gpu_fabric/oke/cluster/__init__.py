"""The OKE cluster: its stack config, resources (cluster, system pool) and the versions OKE
offers."""
