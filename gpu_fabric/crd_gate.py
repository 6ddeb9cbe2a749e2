"""Wait until CRDs are served before creating custom resources of them."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_command as command

KUBECONFIG_ENV = "GPU_FABRIC_KUBECONFIG"


def wait_script(crds: list[str], timeout: str) -> str:
    """`kubectl wait` for each CRD to exist, then to be Established (kubectl 1.31+)."""
    names = " ".join(f"crd/{crd}" for crd in crds)
    return f"""set -eu
export KUBECONFIG="$(mktemp)"
trap 'rm -f "$KUBECONFIG"' EXIT
printf '%s' "${KUBECONFIG_ENV}" > "$KUBECONFIG"
kubectl wait --for=create --timeout={timeout} {names}
kubectl wait --for=condition=Established --timeout=5m {names}
"""


@dataclass(frozen=True)
class CrdGateArgs:
    crds: list[str]
    """CRD names, e.g. `networks.networking.gke.io`."""
    kubeconfig: pulumi.Input[str]
    """Kubeconfig of the cluster (an exec-plugin one: it holds no credential, but stays secret)."""
    cluster_id: pulumi.Input[str]
    """Re-runs the gate when the cluster is replaced."""
    timeout: str = "10m"
    """How long the CRDs may take to appear."""
    after: list[pulumi.Resource] = field(default_factory=list)
    """What installs the CRDs (a Helm release): the wait starts once it is done."""
    installer_version: pulumi.Input[str] = ""
    """The version of what installs them: the gate runs again when it changes (a chart that
    drops its CRDs on an upgrade or a downgrade fails the update here, naming them)."""


class CrdGate(pulumi.ComponentResource):
    """A `command.local.Command` that returns once the CRDs exist and are Established.

    A custom resource created before its CRD is served fails after a few retries
    (pulumi/pulumi-kubernetes#1446); resources that `depends_on` the gate do not start before it.
    It runs where `pulumi up` runs and needs kubectl 1.31+ and the kubeconfig's auth plugin there.
    """

    command: command.local.Command

    def __init__(self, name: str, args: CrdGateArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-fabric:k8s:CrdGate", name, None, opts)
        self.command = command.local.Command(
            f"{name}-wait",
            create=wait_script(args.crds, args.timeout),
            interpreter=["/bin/sh", "-c"],
            environment={KUBECONFIG_ENV: pulumi.Output.secret(args.kubeconfig)},
            triggers=[
                args.cluster_id,
                *([args.installer_version] if args.installer_version else []),
            ],
            # A component's own `depends_on` does not hold back its children: the command waits.
            opts=pulumi.ResourceOptions(parent=self, depends_on=args.after),
        )
        self.register_outputs({})
