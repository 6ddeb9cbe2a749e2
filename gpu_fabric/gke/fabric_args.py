"""What GKE's fabric layer (`fabric.py`) takes: typed dicts, so every Pulumi language can pass them
to a hosted `GkeFabric`, and each fabric's module (`gib.py`, `tcpx.py`, ...) can fill them without
importing the layer."""

from typing import NotRequired, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from ..health.args import HealthSettings
from ..storage.args import TrainingVolume
from ..workloads.settings import TrainingQueueSettings


class GkeInstaller(TypedDict):
    """The fabric's upstream NCCL installer DaemonSet, owned by this layer."""

    image: str
    """The installer image (pinned)."""
    pause_image: str
    """The pause container's image."""
    await_rollout: bool
    """Let `pulumi up` wait for the rollout (needs the GPU nodes up)."""
    retain_on_delete: NotRequired[bool]
    """Leave the DaemonSets in the cluster when they leave the stack: set it in an `up` before
    handing them to another owner (unset: false, so a replacement can delete them first)."""


class GkeSmokeTest(TypedDict):
    """GPUDirect-TCPX's two test pods (A3 High)."""

    test_image: str
    """Image with NCCL and the plugin (the installer's)."""
    daemon_image: str
    """The tcpx-daemon (RxDM) image."""


class GkeStorageClass(TypedDict):
    """A Hyperdisk Balanced StorageClass (A4X nodes attach no Persistent Disk)."""

    name: str
    """Its name."""
    is_default: bool
    """Make it the cluster's default class."""


class GkeFabricArgs(TypedDict):
    """What GKE's fabric layer puts in the cluster."""

    kubernetes_provider: k8s.Provider
    """The provider of the cluster to fill."""
    kubeconfig: pulumi.Input[str]
    """The cluster's kubeconfig, for the CRD gates (run with kubectl where `pulumi up` runs)."""
    cluster_id: pulumi.Input[str]
    """The cluster's id: the CRD gates run again when it changes."""
    machine_type: str
    """The GPU machine type (catalog): it decides the fabric, installer and NIC device modes."""
    network_object_names: list[str]
    """A Network object per GPU NIC, in NIC order."""
    nic_networks: pulumi.Input[list[str]]
    """The VPC of each GPU NIC (the cloud layer's nic_networks)."""
    gpu_subnets: pulumi.Input[list[str]]
    """The subnet of each GPU NIC (the cloud layer's gpu_subnets)."""
    installer: NotRequired[GkeInstaller]
    """The NCCL installer (unset: something else owns it)."""
    nri_device_injector_image: NotRequired[str]
    """A3 Mega: the NRI device injector, which the TCPXO daemon needs (with the installer)."""
    smoke_test: NotRequired[GkeSmokeTest]
    """A3 High: the TCPX smoke test pods."""
    gpu_node_count: NotRequired[int]
    """GPU nodes in the pools, all usable before the update ends (unset or 0: no wait)."""
    node_wait_timeout: NotRequired[str]
    """How long to wait for them (a duration: 30m, 1h)."""
    gpu_node_pools: NotRequired[pulumi.Input[list[str]]]
    """The GPU node pools' names: the smoke test waits for them."""
    gpu_node_pool_instance_groups: NotRequired[pulumi.Input[list[str]]]
    """The pools' managed instance groups (the cloud layer's output): the usable-nodes wait runs
    again when a pool is replaced under its name."""
    hyperdisk_storage_class: NotRequired[GkeStorageClass]
    """A4X: a Hyperdisk StorageClass."""
    nvlink_driver_version: NotRequired[str]
    """A4X: the NVIDIA DRA driver chart version whose ComputeDomains give jobs NVLink across nodes
    (unset: none; an external owner brings its own)."""
    training_queue: NotRequired[TrainingQueueSettings]
    """Kueue, JobSet and the queue users' jobs go through (unset: none)."""
    health: NotRequired[HealthSettings]
    """The GPU nodes' checks, the taint on a failed one, alert rules (unset: none)."""
    training_volumes: NotRequired[list[TrainingVolume]]
    """Volumes of the training runtime (Cloud Storage buckets): a claim of each in every training
    namespace of `training_queue`, which mounts them (unset: none)."""
