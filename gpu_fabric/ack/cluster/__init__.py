"""The ACK Pro cluster: its stack config, resources (cluster, system pool, add-ons) and the versions
ACK offers."""
