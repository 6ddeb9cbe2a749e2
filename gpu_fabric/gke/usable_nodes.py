"""Wait, in `pulumi up`, until every GPU node of the stack's pools is usable, or fail naming each
node and what it lacks.

GKE reports a node pool created once its VMs run, whether or not their GPUs are advertised or the
fabric's installer ran on them: without this wait, `pulumi up` ends green on nodes a job cannot
use. Each node must be Ready, keep no taint but GKE's GPU taint (and the arm64 taint of Arm
nodes), advertise its GPUs (`nvidia.com/gpu`, GKE's device plugin: GKE docs, "About GPUs in
GKE") and each GPU NIC's network, and run the fabric's installer pod (and TCPXO's NRI device
injector), which installs NCCL's plugin for the NICs (container-engine-accelerators' installer
DaemonSets; the pod is Running once its install init container is done). On A4X, the NVIDIA DRA
driver's ComputeDomain kubelet plugin must publish the node's devices too.

A GPU NIC is usable once GKE's multi-network controller finds its interface up on the node: it
then lists the Network in the node's `networking.gke.io/networks` annotation and advertises
`networking.gke.io.networks/<Network>.IP` in its capacity, a Device network's with one address
(kubernetes/cloud-provider-gcp pkg/controller/nodeipam/ipam/multinetwork_cloud_cidr_allocator.go,
`allocateIPCapacity`; a network without the node's network-status is skipped). The kubelet
copies an extended resource of the capacity to the allocatable, which the wait reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi

from .. import yaml_files
from ..catalog import Machine, catalog
from ..node_wait import (
    Advertised,
    NodeNeeds,
    Published,
    RunningPod,
    UsableNodes,
    UsableNodesArgs,
)
from ..nvidia import GPU_RESOURCE
from .fabrics.gib import ARM64_TOLERATION
from .fabrics.nccl_installer import NRI_DEVICE_INJECTOR, installer_file
from .fabrics.nvlink import COMPUTE_DOMAIN_DRIVER
from .node_labels import NODE_POOL_LABEL

WAIT_MINUTES = 30
"""From the pools' creation: GKE installs the driver at boot, then the installer runs."""

FAILURE = """  echo "GPU nodes are not usable yet: $1." >&2
  echo "Read a node's pods and events: kubectl describe node NODE; the installer's log:" \\
    "kubectl -n kube-system logs -l LABEL --all-containers --field-selector" \\
    "spec.nodeName=NODE (its selector is named above)." >&2
"""


@dataclass(frozen=True)
class DaemonSetPods:
    """A DaemonSet whose pod must run on every GPU node: its manifest's namespace and labels."""

    manifest: dict
    what: str

    def running_pod(self) -> RunningPod:
        labels = self.manifest["spec"]["selector"]["matchLabels"]
        selector = ",".join(f"{key}={value}" for key, value in labels.items())
        return RunningPod(self.manifest["metadata"]["namespace"], selector, self.what)


def daemon_sets_of(machine: Machine) -> list[DaemonSetPods]:
    """The fabric's DaemonSets, from their vendored manifests: whoever applies them (the stack,
    or an external owner's bundle, which applies the same ones) their pods must run."""
    daemon_sets = [DaemonSetPods(yaml_files.read(installer_file(machine)), "NCCL installer")]
    if catalog().fabrics[machine.fabric].nri_device_injector:
        daemon_sets.append(
            DaemonSetPods(yaml_files.read(NRI_DEVICE_INJECTOR), "NRI device injector")
        )
    return daemon_sets


NETWORK_RESOURCE = "networking.gke.io.networks/{network}.IP"
"""What a node advertises for each Network whose interface is up on it."""

COMPUTE_DOMAIN_DEVICES = Published(
    COMPUTE_DOMAIN_DRIVER,
    2,
    "the NVIDIA DRA driver's ComputeDomain kubelet plugin",
)
"""Its `channel-0` and `daemon-0`, one ResourceSlice per node (dra-driver-nvidia-gpu
cmd/compute-domain-kubelet-plugin/deviceinfo.go: the other channels are not published)."""


TOPOLOGY_FIX = (
    "GKE sets its cloud.google.com/gce-topology-* labels on reservation-bound or compactly "
    "placed nodes: give the pool a reservation or compactPlacement: true, or remove the level "
    "from gpu-fabric:queues.topologyLevels"
)


def needs_of(
    machine: Machine,
    network_names: Sequence[str],
    compute_domains: bool = False,
    topology_levels: Sequence[str] = (),
) -> NodeNeeds:
    """What a node of `machine` needs: its GPUs and each GPU NIC's Network (`network_names`)
    advertised, the fabric's DaemonSets' pods running, with `compute_domains` the ComputeDomain
    plugin's devices published, and a label for each of the queue's `topology_levels`."""
    daemon_sets = daemon_sets_of(machine)
    allowed = (
        (GPU_RESOURCE, ARM64_TOLERATION["key"]) if machine.arch == "arm64" else (GPU_RESOURCE,)
    )
    return NodeNeeds(
        advertised=[
            Advertised(GPU_RESOURCE, machine.accelerator.count, "GKE's NVIDIA device plugin"),
            *(
                Advertised(
                    NETWORK_RESOURCE.format(network=network),
                    1,
                    "GKE multi-networking: the NIC's interface up on the node",
                )
                for network in network_names
            ),
        ],
        published=[COMPUTE_DOMAIN_DEVICES] if compute_domains else [],
        pods=[d.running_pod() for d in daemon_sets],
        allowed_taints=allowed,
        topology_labels=topology_levels,
        topology_fix=TOPOLOGY_FIX,
    )


def usable_gpu_nodes(
    name: str,
    kubeconfig: pulumi.Input[str],
    cluster_id: pulumi.Input[str],
    pools: pulumi.Input[list[str]],
    instance_groups: pulumi.Input[list[str]],
    count: int,
    needs: NodeNeeds,
    after: list[pulumi.Resource],
    guarded: list[pulumi.Input[object]],
    opts: pulumi.ResourceOptions,
    timeout_seconds: int = WAIT_MINUTES * 60,
) -> UsableNodes:
    """The wait for `count` nodes of the `pools` (their names: an output of the pools, so the
    wait starts once they exist), after the installers and drivers (`after`); again when the
    cluster or a pool's instance groups change (a pool replaced under its name), or what it
    guards does (`guarded`: the installers' images, the driver's version): a rollout that breaks
    a node then fails the update too."""
    selector = pulumi.Output.from_input(pools).apply(
        lambda names: f"{NODE_POOL_LABEL} in ({','.join(names)})"
    )
    return UsableNodes(
        name,
        UsableNodesArgs(
            kubeconfig=kubeconfig,
            selector=selector,
            count=count,
            needs=needs,
            failure=FAILURE,
            timeout_seconds=timeout_seconds,
            triggers=[cluster_id, pools, instance_groups, *guarded],
            after=after,
        ),
        opts,
    )
