"""DRANET and the NVIDIA DRA GPU driver in the cluster, as in the DRANET-on-OKE write-up.

The namespace `rdma-dranet` (Pod Security baseline, as in the write-up), the DeviceClass
`dra.net` (the DRANET chart creates none), the `rdma-dranet-tools` ConfigMap with the write-up's
`rail-map.sh`, and both drivers as Helm releases from their OCI registries. The NVIDIA chart creates
its own DeviceClass `gpu.nvidia.com`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s

from ...catalog import ChartPin, catalog
from ...helm import helm_release
from ..claims.component import DRA_API_VERSION, INSTANCE_TYPE_LABEL, RAIL_DEVICE_CLASS

SEED_FILES = Path(__file__).with_name("seed")
NAMESPACE = catalog().oke.namespace
TOOLS_CONFIG_MAP = "rdma-dranet-tools"


def namespace_manifest() -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": NAMESPACE,
            # The DRANET-on-OKE write-up: every test pod, unprivileged, ran under Baseline.
            "labels": {"pod-security.kubernetes.io/enforce": "baseline"},
        },
    }


def rail_device_class() -> dict:
    return {
        "apiVersion": DRA_API_VERSION,
        "kind": "DeviceClass",
        "metadata": {"name": RAIL_DEVICE_CLASS},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{RAIL_DEVICE_CLASS}"'}}]},
    }


def tools_config_map() -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": TOOLS_CONFIG_MAP, "namespace": NAMESPACE},
        "data": {"rail-map.sh": (SEED_FILES / "rail-map.sh").read_text()},
    }


def dranet_values(shape: str, image_tag: str, child_cidr: str | None) -> dict:
    """The write-up's `dranet-values.yaml`. The child range goes in only when configured: charts
    whose schema predates the option reject the key (its schema has additionalProperties: false)."""
    args: dict = {"cloudProviderHint": "OKE"}
    if child_cidr:
        args["cloudProviderOptions"] = {"oke": {"rdma-child-ipv4-cidr": child_cidr}}
    return {
        "image": {"tag": image_tag},
        "nodeSelector": {INSTANCE_TYPE_LABEL: shape},
        "args": args,
    }


def dra_gpu_values(shape: str) -> dict:
    """The write-up's `gpu-dra-values.yaml`: GPUs only (no ComputeDomains), on the GPU shape.

    `gpuResourcesEnabledOverride` acknowledges the chart's guard on GPU allocation through DRA.
    """
    return {
        "nvidiaDriverRoot": "/",
        "gpuResourcesEnabledOverride": True,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}},
        "kubeletPlugin": {"nodeSelector": {INSTANCE_TYPE_LABEL: shape}},
    }


@dataclass(frozen=True)
class DraDriversArgs:
    shape: str
    """The GPU shape, whose catalog facts the charts' values follow."""
    dranet: ChartPin
    """The DRANET chart at the stack's version."""
    dranet_image_tag: str
    """DRANET's image tag."""
    child_cidr: str | None
    """Only a configured child range is passed to the chart."""
    dra_gpu_driver: ChartPin
    """The NVIDIA DRA GPU driver chart at the stack's version."""
    after: list[pulumi.Resource] = field(default_factory=list)
    """What the releases wait for: the GPU nodes' join (Helm's wait on a DaemonSet without pods
    is done at once, whatever the nodes do later)."""


class DraDrivers(pulumi.ComponentResource):
    """The RDMA namespace and tools, DeviceClass `dra.net`, and both DRA drivers.

    The releases start once the GPU nodes have joined (`after`), so Helm's wait sees their pods;
    the fabric layer then waits for each node's devices. The DRANET DaemonSet is privileged with
    hostNetwork, as upstream requires (it moves rail children into pods through NRI); kube-system
    admits it.
    """

    namespace: k8s.core.v1.Namespace
    dranet: k8s.helm.v3.Release
    dra_gpu_driver: k8s.helm.v3.Release

    def __init__(self, name: str, args: DraDriversArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-fabric:oke:DraDrivers", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        after_join = pulumi.ResourceOptions(parent=self, depends_on=args.after)
        ns = namespace_manifest()
        self.namespace = k8s.core.v1.Namespace(
            f"{name}-namespace", metadata=ns["metadata"], opts=child
        )
        device_class = rail_device_class()
        k8s.resource.v1.DeviceClass(
            f"{name}-deviceclass-dra-net",
            metadata=device_class["metadata"],
            spec=device_class["spec"],
            opts=child,
        )
        tools = tools_config_map()
        k8s.core.v1.ConfigMap(
            f"{name}-tools",
            metadata={**tools["metadata"], "namespace": self.namespace.metadata.name},
            data=tools["data"],
            opts=child,
        )
        self.dranet = helm_release(
            f"{name}-dranet",
            "dranet",
            args.dranet,
            dranet_values(args.shape, args.dranet_image_tag, args.child_cidr),
            after_join,
        )
        # The chart refuses the `default` namespace; its own one is created with it.
        self.dra_gpu_driver = helm_release(
            f"{name}-dra-driver-nvidia-gpu",
            "dra-driver-nvidia-gpu",
            args.dra_gpu_driver,
            dra_gpu_values(args.shape),
            after_join,
            create_namespace=True,
        )
        self.register_outputs({})
