"""DRANET and the NVIDIA DRA GPU driver: their stack config, releases and node seed."""
