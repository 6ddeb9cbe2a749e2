"""gpu-fabric: GPU clusters whose GPUs get the full bandwidth of every NIC they have.

The import package is `gpu_fabric` in a checkout and installed with pip (`gpu-fabric[gke]`, ...).
`python -m gpu_fabric` serves the component package to the Pulumi engine. Each platform is a
subpackage (`gke`, `oke`, `ack`) with a cloud layer and an in-cluster fabric layer (`cloud.py`,
`fabric.py`).
"""

__version__ = "0.1.0"
