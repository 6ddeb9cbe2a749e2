"""`Network` and `GKENetworkParamSet` objects that bind each GPU VPC into the cluster."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_command as command
import pulumi_kubernetes as k8s

API_VERSION = "networking.gke.io/v1"
NETWORK_CRDS = ["networks.networking.gke.io", "gkenetworkparamsets.networking.gke.io"]
KUBECONFIG_ENV = "GPU_FABRIC_KUBECONFIG"

# GKE installs these CRDs when multi-networking is on, but may serve them a little after the
# cluster reports RUNNING; a custom resource created before its CRD is served fails after a few
# retries (pulumi/pulumi-kubernetes#1446). This gate waits for both CRDs to exist and be
# Established. It runs on the machine that runs `pulumi up` and needs kubectl 1.31+ (for
# `--for=create`) and gke-gcloud-auth-plugin on PATH, like the provider's kubeconfig.
CRD_WAIT_SCRIPT = f"""set -eu
export KUBECONFIG="$(mktemp)"
trap 'rm -f "$KUBECONFIG"' EXIT
printf '%s' "${KUBECONFIG_ENV}" > "$KUBECONFIG"
kubectl wait --for=create --timeout=10m {' '.join(f'crd/{c}' for c in NETWORK_CRDS)}
kubectl wait --for=condition=Established --timeout=5m {' '.join(f'crd/{c}' for c in NETWORK_CRDS)}
"""


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
    kubeconfig: pulumi.Input[str]
    """Kubeconfig for the CRD gate (the provider's own)."""
    cluster_id: pulumi.Input[str]
    """Re-runs the gate when the cluster is replaced."""


class NetworkObjects(pulumi.ComponentResource):
    """Device-type `Network`s with their `GKENetworkParamSet`s, created once the CRDs are served.

    GKE's own `default` Network is managed by GKE and is not created here.
    """

    crd_gate: command.local.Command
    """Waits until the Network and GKENetworkParamSet CRDs are Established."""
    network_names: list[str]

    def __init__(
        self,
        name: str,
        args: NetworkObjectsArgs,
        opts: pulumi.ResourceOptions | None = None,
    ):
        super().__init__("gpu-fabric:gke:NetworkObjects", name, None, opts)

        self.crd_gate = command.local.Command(
            f"{name}-crds-ready",
            create=CRD_WAIT_SCRIPT,
            interpreter=["/bin/sh", "-c"],
            environment={KUBECONFIG_ENV: pulumi.Output.secret(args.kubeconfig)},
            triggers=[args.cluster_id],
            opts=pulumi.ResourceOptions(parent=self),
        )
        after_gate = pulumi.ResourceOptions(parent=self, depends_on=[self.crd_gate])
        for net in args.networks:
            for manifest in (param_set_manifest(net), network_manifest(net)):
                k8s.apiextensions.CustomResource(
                    f"{name}-{manifest['kind'].lower()}-{net.name}",
                    api_version=manifest["apiVersion"],
                    kind=manifest["kind"],
                    metadata=manifest["metadata"],
                    spec=manifest["spec"],
                    opts=after_gate,
                )

        self.network_names = [n.name for n in args.networks]
        self.register_outputs({"network_names": self.network_names})
