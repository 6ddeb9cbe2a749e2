"""gpu-fabric: GPU clusters whose GPUs get the full bandwidth of every NIC they have.

In this repository the package is `components/` (the Pulumi program's layout); installed with pip,
it is `gpu_fabric`. Each platform is a subpackage (`gke`, `oke`, `ack`) with a cloud layer and an
in-cluster fabric layer (`cloud.py`, `fabric.py`).
"""

__version__ = "0.1.0"
