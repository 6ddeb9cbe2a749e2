"""The NCCL plugin installer DaemonSets, reproduced from upstream manifests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s

from .. import yaml_files
from ..layers import after
from ..workload_security import waive_upstream

UPSTREAM = Path(__file__).with_name("upstream")
# GoogleCloudPlatform/container-engine-accelerators, verbatim (see upstream/README.md).
TCPX_INSTALLER = UPSTREAM / "nccl-tcpx-installer.yaml"
GIB_INSTALLER = UPSTREAM / "nccl-rdma-installer-a4x.yaml"
TCPXO_INSTALLER = UPSTREAM / "nccl-tcpxo-installer.yaml"
# The amd64 gIB installer of A3 Ultra and A4 (its node affinity names both accelerators).
GIB_INSTALLER_AMD64 = UPSTREAM / "nccl-rdma-installer.yaml"
# pulumi-kubernetes: skip the await logic of this object (pulumi/pulumi-kubernetes#417).
SKIP_AWAIT = "pulumi.com/skipAwait"
GIB_INSTALLERS = {"arm64": GIB_INSTALLER, "amd64": GIB_INSTALLER_AMD64}
"""The gIB installer manifest per node architecture (the catalog's `arch`)."""
# Issue 14, item 5: handing an owned DaemonSet to another owner (`installer.owner: external`) must
# not delete it, or every new GPU pod breaks until the other owner's bundle applies the same name.
# With `retainOnDelete` (Pulumi resource option; docs "Resource options: retainOnDelete") a
# resource that leaves the program is dropped from the state and left in the cluster. A
# `pulumi destroy` leaves it too: the cluster going away removes it (or delete it with kubectl).
RETAINED = pulumi.ResourceOptions(retain_on_delete=True)
"""Options of every DaemonSet this package hands over to another owner (installer, injector)."""


def installer_manifest(upstream: Path, installer_image: str, pause_image: str) -> dict:
    """An upstream installer DaemonSet, verbatim but for its two images (from the catalog) and
    the checkov waivers its privileged design needs (`waive_upstream`, annotations only).

    The installer is the init container named like the DaemonSet; others (TCPXO's
    `pre-installation`) stay as upstream has them.
    """
    manifest = yaml_files.read(upstream)
    pod = manifest["spec"]["template"]["spec"]
    (installer,) = [c for c in pod["initContainers"] if c["name"] == manifest["metadata"]["name"]]
    (pause,) = pod["containers"]
    installer["image"] = installer_image
    pause["image"] = pause_image
    return waive_upstream(manifest)


@dataclass(frozen=True)
class NcclInstallerArgs:
    upstream: Path
    """The vendored upstream manifest."""
    installer_image: str
    pause_image: str
    await_rollout: bool = False
    """Let `pulumi up` wait for the rollout (pulumi-kubernetes awaits DaemonSets since #2953)."""
    wait_for: pulumi.Input[list[str]] | None = None
    """With await_rollout: outputs of the cloud layer the DaemonSet waits for (the GPU node
    pools' names), so its rollout is awaited once there are nodes to roll out on."""


def awaited_spec(spec: dict, await_rollout: bool, wait_for: pulumi.Input[list[str]] | None):
    """A DaemonSet's spec; an awaited one only once `wait_for` (the GPU node pools) resolves.

    Created beside a pool still booting, an awaited DaemonSet sees 0 desired pods and counts as
    rolled out at once, so the await checks nothing: it must start after the pools exist.
    """
    return after(spec, wait_for) if await_rollout and wait_for is not None else spec


class NcclInstaller(pulumi.ComponentResource):
    """An installer DaemonSet that puts NCCL and a network plugin on every GPU node.

    Privileged with hostNetwork/hostPID, as upstream requires: it writes into the node's
    /home/kubernetes/bin. It needs only the cluster (through the provider), not the node pool:
    a DaemonSet needs no nodes to exist.
    """

    daemon_set: k8s.apps.v1.DaemonSet

    def __init__(
        self, name: str, args: NcclInstallerArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:gke:NcclInstaller", name, None, opts)
        manifest = installer_manifest(args.upstream, args.installer_image, args.pause_image)
        metadata = manifest["metadata"]
        if not args.await_rollout:
            # The DaemonSet targets GPU nodes that may not exist yet (a pool of 0 nodes, capacity
            # still pending) or cannot run it yet (a bundle-installed driver): waiting for its
            # rollout could hold `pulumi up` until the timeout. `make verify` checks it instead.
            metadata = {**metadata, "annotations": {**metadata["annotations"], SKIP_AWAIT: "true"}}
        self.daemon_set = k8s.apps.v1.DaemonSet(
            name,
            metadata=metadata,
            spec=awaited_spec(manifest["spec"], args.await_rollout, args.wait_for),
            opts=pulumi.ResourceOptions.merge(RETAINED, pulumi.ResourceOptions(parent=self)),
        )
        self.register_outputs({})
