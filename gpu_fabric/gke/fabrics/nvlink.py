"""A4X's NVLink domains: the NVIDIA DRA driver's ComputeDomains, so a job's GPUs across nodes of
one GB200 NVL72 rack talk over NVLink (MNNVL) instead of falling back to gIB over RoCE.

The driver (kubernetes-sigs/dra-driver-nvidia-gpu, the catalog's `nvidia_dra_driver`) runs with
ComputeDomains only: GKE's device plugin keeps the GPUs (`resources.gpus.enabled: false`), as
cluster-toolkit's examples/gke-a4x installs it (modules/management/kubectl-apply/main.tf,
`nvidia_dra_driver`). Its namespace gets cluster-toolkit's ResourceQuota
(examples/gke-a4x/nvidia-dra-driver.yaml): GKE admits pods of the `system-node-critical` and
`system-cluster-critical` PriorityClasses outside kube-system only under such a quota.

A ComputeDomain makes, in its namespace, the ResourceClaimTemplate its channel is claimed from
(dra-driver-nvidia-gpu templates/compute-domain-workload-claim-template.tmpl.yaml). A
ClusterTrainingRuntime names one template for every namespace it runs in, so each training
namespace has one ComputeDomain, `gpu-fabric-nvlink`, whose channel its jobs' pods claim; its
IMEX daemons follow the pods (`numNodes: 0`, the driver's recommendation with
`IMEXDaemonsWithDNSNames`, on by default; docs/computedomain.md). The driver's README binds a
ComputeDomain to one workload, and GKE's A4X guide and XPK make one per job; nothing upstream makes
one per job without the job's author writing it (a ClusterTrainingRuntime cannot, and Trainer has
no hook that creates objects per TrainJob), so the isolation domain here is the namespace: jobs that
must not share an IMEX domain go to different `queues.teams`, each a namespace with its own
ComputeDomain. Jobs of one namespace sharing one is UNVERIFIED.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from ...catalog import ChartPin
from ...helm import helm_release
from ...nvidia import GPU_RESOURCE, HOST_DRIVER_DIR
from ...pod_spec import add_claim, container_named
from ..node_labels import ACCELERATOR_LABEL
from .gib import ARM64_TOLERATION

COMPUTE_DOMAIN = "gpu-fabric-nvlink"
CHANNEL_TEMPLATE = f"{COMPUTE_DOMAIN}-channel"
"""The ResourceClaimTemplate the ComputeDomain's controller creates for its channel."""
CHANNEL_CLAIM = "compute-domain-channel"
"""The pod's claim name (cluster-toolkit examples/gke-a4x/nccl-jobset-example.yaml)."""
CHANNEL_DEVICE_CLASS = "compute-domain-default-channel.nvidia.com"
"""The channel's DeviceClass (the chart's deviceclass-compute-domain-default-channel template)."""
COMPUTE_DOMAIN_DRIVER = "compute-domain.nvidia.com"
"""The DRA driver name of its ComputeDomain kubelet plugin."""
CHANNEL_RESOURCE = f"{COMPUTE_DOMAIN_DRIVER}/channel"
"""What the queue counts for a channel claim: one per pod, so one per node of a pool."""
COMPUTE_DOMAIN_CRDS = ["computedomains.resource.nvidia.com"]


def compute_domain() -> dict:
    """The training namespace's ComputeDomain (resource.nvidia.com/v1beta1); its namespace is set
    where it is created."""
    return {
        "apiVersion": "resource.nvidia.com/v1beta1",
        "kind": "ComputeDomain",
        "metadata": {"name": COMPUTE_DOMAIN},
        "spec": {"numNodes": 0, "channel": {"resourceClaimTemplate": {"name": CHANNEL_TEMPLATE}}},
    }


def with_compute_domain(pod_template: dict, container: str | None = None) -> dict:
    """A copy of a pod template whose container (default: the first) claims the ComputeDomain's
    channel, as cluster-toolkit's A4X NCCL JobSet does (the kubelet then mounts the IMEX channel
    device). Raises ValueError rather than overwrite a different claim of the same name."""
    template = copy.deepcopy(pod_template)
    spec = template.setdefault("spec", {})
    target = container_named(spec, container)
    add_claim(spec, target, CHANNEL_CLAIM, CHANNEL_TEMPLATE)
    return template


def driver_values(accelerator: str) -> dict:
    """The chart's values on GKE: ComputeDomains only, the driver where GKE installs it, the
    kubelet plugin on the A4X nodes (the chart's default affinity asks for GPU Operator labels GKE
    nodes lack), tolerating their GPU and arm64 taints (cluster-toolkit's values; the driver's
    docs/install.md: "For GKE, use /home/kubernetes/bin/nvidia")."""
    on_gpu_nodes = {
        "nodeSelectorTerms": [
            {
                "matchExpressions": [
                    {"key": ACCELERATOR_LABEL, "operator": "In", "values": [accelerator]},
                    {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]},
                ]
            }
        ]
    }
    return {
        "nvidiaDriverRoot": HOST_DRIVER_DIR,
        "resources": {"gpus": {"enabled": False}, "computeDomains": {"enabled": True}},
        "kubeletPlugin": {
            "affinity": {
                "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": on_gpu_nodes}
            },
            "tolerations": [
                {"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"},
                dict(ARM64_TOLERATION),
            ],
        },
    }


def critical_pods_quota(namespace: str) -> dict:
    """cluster-toolkit's quota: room for the driver's critical pods in its namespace."""
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": f"{namespace}-quota", "namespace": namespace},
        "spec": {
            "hard": {"pods": "100"},
            "scopeSelector": {
                "matchExpressions": [
                    {
                        "operator": "In",
                        "scopeName": "PriorityClass",
                        "values": ["system-node-critical", "system-cluster-critical"],
                    }
                ]
            },
        },
    }


@dataclass(frozen=True)
class NvlinkDomainsArgs:
    chart: ChartPin
    """The NVIDIA DRA driver chart at the stack's version."""
    accelerator: str
    """The A4X nodes' `cloud.google.com/gke-accelerator` value."""
    after: Sequence[pulumi.Resource] = ()
    """What the release waits for besides its namespace and quota (nothing by default: it is
    installed beside the GPU nodes, not after them, and the usable wait checks that its kubelet
    plugin publishes each node's devices; Helm's wait alone sees no pod before a node exists)."""


class NvlinkDomains(pulumi.ComponentResource):
    """The NVIDIA DRA driver with ComputeDomains, in its namespace with the critical-pods quota."""

    release: k8s.helm.v3.Release

    def __init__(
        self, name: str, args: NvlinkDomainsArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:gke:NvlinkDomains", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace", metadata={"name": args.chart.namespace}, opts=child
        )
        quota = critical_pods_quota(args.chart.namespace)
        quota_resource = k8s.core.v1.ResourceQuota(
            f"{name}-quota",
            metadata={**quota["metadata"], "namespace": namespace.metadata.name},
            spec=quota["spec"],
            opts=child,
        )
        self.release = helm_release(
            f"{name}-driver",
            "dra-driver-nvidia-gpu",
            args.chart,
            driver_values(args.accelerator),
            pulumi.ResourceOptions(parent=self, depends_on=[quota_resource, *args.after]),
        )
        self.register_outputs({})
