"""NVIDIA AICR's `torch-distributed-rdma` Kubeflow Trainer runtime on the gIB networks (A4X)."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

from ..crd_gate import CrdGate, CrdGateArgs
from ..k8s_objects import custom_resource
from ..workload_security import RUNTIME_REASONS, secure_workload
from .gib import with_gib

TRAINER_CRDS = ["clustertrainingruntimes.trainer.kubeflow.org"]
TRAINING_RUNTIME = "torch-distributed-rdma"


def training_runtime_manifest(image: str, networks: list[str], gpus: int) -> dict:
    """AICR's `torch-distributed-rdma` ClusterTrainingRuntime, its pod wired by `with_gib`.

    AICR ships it as a Helm hook; here it is a plain object (no hook annotations).
    """
    pod_template = with_gib(
        {"metadata": {}, "spec": {"containers": [{"name": "node", "image": image}]}},
        networks,
        gpus,
    )
    runtime = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "ClusterTrainingRuntime",
        "metadata": {
            "name": TRAINING_RUNTIME,
            "labels": {"trainer.kubeflow.org/framework": "torch"},
        },
        "spec": {
            "mlPolicy": {"numNodes": 2, "torch": {}},
            "template": {
                "spec": {
                    "replicatedJobs": [
                        {
                            "name": "node",
                            "template": {
                                "metadata": {
                                    "labels": {
                                        "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"
                                    }
                                },
                                "spec": {"template": pod_template},
                            },
                        }
                    ]
                }
            },
        },
    }
    # Secure defaults (docs/security.md): a torch-distributed pod needs no added capability;
    # its resources are each TrainJob's, and the reasons are a runtime's, not a test's.
    return secure_workload(runtime, default_size="none", reasons_for=RUNTIME_REASONS)


@dataclass(frozen=True)
class TrainingRuntimeArgs:
    image: str
    """Image of the runtime's trainer container."""
    networks: list[str]
    """Network object names in NIC order (gvnic-1, rdma-0..rdma-3)."""
    gpus: int
    """GPUs per node the runtime claims."""
    kubeconfig: pulumi.Input[str]
    """Kubeconfig for the CRD gate (the provider's own)."""
    cluster_id: pulumi.Input[str]
    """Re-runs the gate when the cluster is replaced."""


class TrainingRuntime(pulumi.ComponentResource):
    """The Kubeflow Trainer runtime `torch-distributed-rdma`, created once Trainer's CRD is served.

    Kubeflow Trainer itself is not installed by gpu-fabric; the gate waits for its CRD.
    """

    def __init__(
        self, name: str, args: TrainingRuntimeArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:gke:TrainingRuntime", name, None, opts)
        gate = CrdGate(
            f"{name}-crds",
            CrdGateArgs(TRAINER_CRDS, args.kubeconfig, args.cluster_id, timeout="30m"),
            pulumi.ResourceOptions(parent=self),
        )
        manifest = training_runtime_manifest(args.image, args.networks, args.gpus)
        custom_resource(name, manifest, pulumi.ResourceOptions(parent=self, depends_on=[gate]))
        self.register_outputs({})
