"""The NCCL plugin installer DaemonSets, and the NRI device injector that GPUDirect-TCPXO's
installer needs beside it, reproduced from upstream manifests."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s

from ... import yaml_files
from ...catalog import DeviceMode, Machine, catalog
from ...k8s_objects import SKIP_AWAIT
from ...layers import after
from ...workload_security import waive_upstream

# GoogleCloudPlatform/container-engine-accelerators, verbatim (see upstream/README.md); which
# installer a machine runs is its fabric's catalog entry (`fabrics.<fabric>.installers`).
UPSTREAM = Path(__file__).with_name("upstream")
NRI_DEVICE_INJECTOR = UPSTREAM / "nri-device-injector.yaml"
# pulumi-kubernetes: skip the await logic of this object (pulumi/pulumi-kubernetes#417).


def retained(retain_on_delete: bool, parent: pulumi.Resource) -> pulumi.ResourceOptions:
    """A DaemonSet's options: `retainOnDelete` only while it is being handed to another owner.

    Handing an owned DaemonSet to another owner (`installer.owner: external`) must not delete it,
    or every new GPU pod breaks until the other owner's bundle applies the same name. With
    `retainOnDelete` (Pulumi docs, "Resource options: retainOnDelete") a resource that leaves the
    program is dropped from the state and left in the cluster; Pulumi reads the option from the
    state, so it must be set in an `up` before the DaemonSet leaves (`installer.owner:
    handover`). It is not always on: a DaemonSet has a fixed name, so pulumi-kubernetes replaces
    it delete-first, and a retained one is not deleted: the new one fails with AlreadyExists.
    """
    return pulumi.ResourceOptions(parent=parent, retain_on_delete=retain_on_delete)


def installer_file(machine: Machine) -> Path:
    """The vendored upstream installer of a machine's fabric, for its node architecture."""
    return UPSTREAM / catalog().fabrics[machine.fabric].installers[machine.arch]


def quiet_martians_of(machine: Machine) -> list[str]:
    """The host names of the machine's RDMA NICs whose martian logging goes off (catalog
    `fabrics.<fabric>.quiet_martians`, one per NIC of its RDMA group), or none."""
    pattern = catalog().fabrics[machine.fabric].quiet_martians.get(machine.arch)
    rdma = next((g for g in machine.nic_groups if g.device_mode is DeviceMode.RDMA), None)
    if not pattern or rdma is None:
        return []
    return [pattern.format(i=i) for i in range(rdma.count)]


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
    """The installer container's image (replaces the upstream manifest's)."""
    pause_image: str
    """The pause container's image."""
    await_rollout: bool = False
    """Let `pulumi up` wait for the rollout (pulumi-kubernetes awaits DaemonSets since #2953)."""
    wait_for: pulumi.Input[list[str]] | None = None
    """With await_rollout: outputs of the cloud layer the DaemonSet waits for (the GPU node
    pools' names), so its rollout is awaited once there are nodes to roll out on."""
    retain_on_delete: bool = False
    """Leave it in the cluster when it leaves the stack (`retained`)."""
    quiet_martians: Sequence[str] = ()
    """Host NICs whose martian-packet logging an init container turns off first."""


QUIET_MARTIANS = "disable-log-martian"
"""cluster-toolkit's name of the init container (its A3 Ultra and A4 installer templates)."""


def with_quiet_martians(manifest: dict, nics: Sequence[str], image: str) -> dict:
    """`manifest` with cluster-toolkit's first init container: `log_martians` off on each of
    `nics` (the RDMA NICs' host names), as its `sysctl -w net.ipv4.conf.<nic>.log_martians=0`
    does, written to /proc/sys from the installer's own image (one pinned image, a shell); the
    pod is hostNetwork, so these are the node's NICs. A NIC that is not there fails the pod, as
    cluster-toolkit's does."""
    if not nics:
        return manifest
    manifest = copy.deepcopy(manifest)
    pod = manifest["spec"]["template"]["spec"]
    script = "set -e\n" + "".join(
        f"echo 0 > /proc/sys/net/ipv4/conf/{nic}/log_martians\n" for nic in nics
    )
    quiet = {
        "name": QUIET_MARTIANS,
        "image": image,
        "command": ["/bin/sh", "-c", script],
        "securityContext": {"privileged": True},
    }
    pod["initContainers"] = [quiet, *pod["initContainers"]]
    return manifest


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
        manifest = with_quiet_martians(
            installer_manifest(args.upstream, args.installer_image, args.pause_image),
            args.quiet_martians,
            args.installer_image,
        )
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
            opts=retained(args.retain_on_delete, self),
        )
        self.register_outputs({})


def device_injector_manifest(image: str) -> dict:
    """Upstream's NRI device injector DaemonSet, verbatim but for its image (from the catalog)
    and its checkov waivers (`waive_upstream`, annotations only)."""
    manifest = yaml_files.read(NRI_DEVICE_INJECTOR)
    (injector,) = manifest["spec"]["template"]["spec"]["containers"]
    injector["image"] = image
    return waive_upstream(manifest)


@dataclass(frozen=True)
class NriDeviceInjectorArgs:
    image: str
    """The device injector's image (replaces the upstream manifest's)."""
    await_rollout: bool = False
    """As the installer's: not awaited by default (it targets GPU nodes that may not exist yet)."""
    wait_for: pulumi.Input[list[str]] | None = None
    """With await_rollout: the GPU node pools' names, as the installer's `wait_for`."""
    retain_on_delete: bool = False
    """As the installer's: the external owner's bundle applies the same DaemonSet, and the TCPXO
    daemon gets no GPUs while it is missing."""


class NriDeviceInjector(pulumi.ComponentResource):
    """The NRI device injector DaemonSet, which gives the tcpxo-daemon its GPU devices.

    Privileged with hostNetwork/hostPID, as upstream requires (it mounts /dev and the NRI socket).
    """

    daemon_set: k8s.apps.v1.DaemonSet

    def __init__(
        self, name: str, args: NriDeviceInjectorArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:gke:NriDeviceInjector", name, None, opts)
        manifest = device_injector_manifest(args.image)
        metadata = manifest["metadata"]
        if not args.await_rollout:
            metadata = {**metadata, "annotations": {**metadata["annotations"], SKIP_AWAIT: "true"}}
        self.daemon_set = k8s.apps.v1.DaemonSet(
            name,
            metadata=metadata,
            spec=awaited_spec(manifest["spec"], args.await_rollout, args.wait_for),
            opts=retained(args.retain_on_delete, self),
        )
        self.register_outputs({})
