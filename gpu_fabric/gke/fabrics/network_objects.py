"""`Network` and `GKENetworkParamSet` objects that bind each GPU VPC into the cluster."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

from ...crd_gate import CrdGate, CrdGateArgs
from ...k8s_objects import custom_resource

API_VERSION = "networking.gke.io/v1"
NETWORK_CRDS = ["networks.networking.gke.io", "gkenetworkparamsets.networking.gke.io"]


@dataclass(frozen=True)
class DeviceNetwork:
    """One Network/GKENetworkParamSet pair."""

    name: str
    """Object name, e.g. `vpc1`; the Network and its param set share it."""
    vpc: pulumi.Input[str]
    """VPC name (a name, not a self link)."""
    subnet: pulumi.Input[str]
    """Subnet name."""
    device_mode: str
    """`NetDevice` or `RDMA`."""


def param_set_manifest(net: DeviceNetwork) -> dict:
    return {
        "apiVersion": API_VERSION,
        "kind": "GKENetworkParamSet",
        "metadata": {"name": net.name},
        "spec": {"vpc": net.vpc, "vpcSubnet": net.subnet, "deviceMode": net.device_mode},
    }


def network_manifest(net: DeviceNetwork) -> dict:
    return {
        "apiVersion": API_VERSION,
        "kind": "Network",
        "metadata": {"name": net.name},
        "spec": {
            "type": "Device",
            "parametersRef": {
                "group": "networking.gke.io",
                "kind": "GKENetworkParamSet",
                "name": net.name,
            },
        },
    }


@dataclass(frozen=True)
class NetworkObjectsArgs:
    networks: list[DeviceNetwork]
    """The GPU networks, in NIC order: one Network and one GKENetworkParamSet each."""
    kubeconfig: pulumi.Input[str]
    """Kubeconfig for the CRD gate (the provider's own)."""
    cluster_id: pulumi.Input[str]
    """Re-runs the gate when the cluster is replaced."""


class NetworkObjects(pulumi.ComponentResource):
    """Device-type `Network`s with their `GKENetworkParamSet`s, created once the CRDs are served.

    GKE's own `default` Network is managed by GKE and is not created here.
    """

    crd_gate: CrdGate
    """Waits until the Network and GKENetworkParamSet CRDs are Established: GKE installs them
    with multi-networking but may serve them a little after the cluster reports RUNNING."""
    network_names: list[str]

    def __init__(
        self,
        name: str,
        args: NetworkObjectsArgs,
        opts: pulumi.ResourceOptions | None = None,
    ):
        super().__init__("gpu-fabric:gke:NetworkObjects", name, None, opts)

        self.crd_gate = CrdGate(
            f"{name}-crds",
            CrdGateArgs(NETWORK_CRDS, args.kubeconfig, args.cluster_id),
            pulumi.ResourceOptions(parent=self),
        )
        after_gate = pulumi.ResourceOptions(parent=self, depends_on=[self.crd_gate])
        for net in args.networks:
            for manifest in (param_set_manifest(net), network_manifest(net)):
                custom_resource(
                    f"{name}-{manifest['kind'].lower()}-{net.name}", manifest, after_gate
                )

        self.network_names = [n.name for n in args.networks]
        self.register_outputs({"network_names": self.network_names})
