"""NVIDIA's names in Kubernetes and on the nodes: one place for every resource name, label, device
class and driver path the platforms use.

Resource and label names are NVIDIA's (the device plugin's `nvidia.com/gpu`, GPU feature
discovery's `nvidia.com/gpu.*` labels, github.com/NVIDIA/k8s-device-plugin); the device class is
the NVIDIA DRA driver's (github.com/NVIDIA/k8s-dra-driver-gpu). The host paths are where GKE's
driver installer puts the driver on COS nodes and where GPU containers see it, as the upstream
test pods mount them (container-engine-accelerators, vendored in verify/upstream/).
"""

from __future__ import annotations

GPU_RESOURCE = "nvidia.com/gpu"
"""The extended resource a device plugin advertises GPUs as (and the GPU nodes' taint key)."""
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
"""The node label NVIDIA's DRA kubelet plugin selects GPU nodes by when NFD does not run."""
DEVICE_PLUGIN_DEPLOY_LABEL = "nvidia.com/gpu.deploy.device-plugin"
"""`false` keeps the GPU Operator's device plugin off a node."""
GPU_DEVICE_CLASS = "gpu.nvidia.com"
"""The NVIDIA DRA driver's DeviceClass of whole GPUs."""
GPU_DRA_DRIVER = "gpu.nvidia.com"
"""The NVIDIA DRA driver's name for its GPUs: its ResourceSlices' `spec.driver` (the DeviceClass
above selects `device.driver == "gpu.nvidia.com"`)."""
GPU_TOLERATION = {"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}
"""Tolerates the GPU nodes' taint, whatever its value."""

HOST_DRIVER_DIR = "/home/kubernetes/bin/nvidia"
"""Where the driver installer puts the driver on the node."""
CONTAINER_DRIVER_DIR = "/usr/local/nvidia"
"""Where GPU containers see it (the device plugin mounts it there)."""
HOST_LIBRARY_DIR = f"{HOST_DRIVER_DIR}/lib64"
CONTAINER_LIBRARY_DIR = f"{CONTAINER_DRIVER_DIR}/lib64"
