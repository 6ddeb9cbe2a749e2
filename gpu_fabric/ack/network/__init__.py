"""The Lingjun cluster's existing VPC: its stack config and resources."""
