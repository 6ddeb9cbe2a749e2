"""The fabric's pre-wired Kubeflow Trainer runtime: a TrainJob that names it gets the whole fabric.

A ClusterTrainingRuntime is the template Kubeflow Trainer builds each TrainJob's JobSet from: the
job gives its image, command and node count, the runtime everything else (Kubeflow Trainer docs,
"Runtime Guide"; kubeflow/trainer charts/kubeflow-trainer/files/runtimes/torch-distributed.yaml
is the plain one). Here the runtime's pod is the fabric's wired pod (each platform's `with_*`
helper, the same one the package's own tests use), so a job carries no fabric setting:

- **queue:** the LocalQueue is named `default`, so Kueue puts every job of the training namespace
  that names no queue into it (kueue pkg/controller/jobframework/defaults.go,
  `DefaultLocalQueueName`; the TrainJob webhook applies it, pkg/controller/jobs/trainjob);
- **topology:** the runtime's pod template carries Kueue's podset topology annotation
  (`kueue.x-k8s.io/podset-preferred-topology` or `-required-topology`), which Kueue reads from
  the JobSet Trainer builds (kueue apis/kueue/v1beta2/topology_types.go);
- **devices:** GPUs, NICs and DRA claims are in the runtime's container, whole nodes per pod.

A TrainJob must not set `spec.trainer.resourcesPerNode`: Trainer writes it over the runtime
container's resources without their `claims` (kubeflow/trainer pkg/runtime/core/
trainingruntime.go at v2.2.1 and v2.3.0), so the pod would lose its DRA claims (OKE's GPUs and
rails, A4X's NVLink channel).
"""

import copy

from ..nvidia import GPU_RESOURCE
from ..workload_security import RUNTIME_REASONS, secure_workload
from .settings import NODE, TrainingRuntimeSettings

TRAINER_API = "trainer.kubeflow.org/v1alpha1"
TRAINER_CRDS = [
    "clustertrainingruntimes.trainer.kubeflow.org",
    "trainingruntimes.trainer.kubeflow.org",
    "trainjobs.trainer.kubeflow.org",
]
ANCESTOR_LABEL = {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}
"""What marks the replicated job that runs the TrainJob's `trainer` (pkg/constants)."""
TOPOLOGY_ANNOTATIONS = {
    "required": "kueue.x-k8s.io/podset-required-topology",
    "preferred": "kueue.x-k8s.io/podset-preferred-topology",
}
"""Kueue's podset annotations: all pods in one domain of the level, or as few as fit."""


def node_template(image: str, gpus: int | None = None) -> dict:
    """The pod template a platform wires: Trainer's `node` container with the runtime's image,
    taking `gpus` device-plugin GPUs (`nvidia.com/gpu`) where the platform's GPUs come so."""
    container: dict = {"name": NODE, "image": image}
    if gpus:
        container["resources"] = {"limits": {GPU_RESOURCE: gpus}}
    return {"metadata": {}, "spec": {"containers": [container]}}


def cluster_training_runtime(runtime: TrainingRuntimeSettings) -> dict:
    """The ClusterTrainingRuntime: Trainer's torch policy on one replicated job of wired pods."""
    pod = copy.deepcopy(runtime["pod_template"])
    if pod["spec"].get("hostNetwork"):
        # Trainer's ranks find the first node by its JobSet DNS name (PET_MASTER_ADDR), which a
        # host-network pod resolves only with this policy (Kubernetes docs, "DNS for Services and
        # Pods": "For Pods running with hostNetwork, you should explicitly set its DNS policy to
        # ClusterFirstWithHostNet").
        pod["spec"].setdefault("dnsPolicy", "ClusterFirstWithHostNet")
    if "topology" in runtime:
        topology = runtime["topology"]
        mode = "required" if topology["required"] else "preferred"
        annotations = pod.setdefault("metadata", {}).setdefault("annotations", {})
        annotations[TOPOLOGY_ANNOTATIONS[mode]] = topology["level"]
    manifest = {
        "apiVersion": TRAINER_API,
        "kind": "ClusterTrainingRuntime",
        "metadata": {
            "name": runtime["name"],
            "labels": {"trainer.kubeflow.org/framework": "torch"},
        },
        "spec": {
            # One node unless the TrainJob says `numNodes`. Trainer starts a process per GPU the
            # container requests as `nvidia.com/gpu` (torchrun's `auto`); GPUs from a DRA claim
            # are not counted, so there a TrainJob gives `numProcPerNode` (kubeflow/trainer
            # pkg/runtime/framework/plugins/torch/torch.go, `EnforceMLPolicy`), and one that
            # does not is refused at admission (`process_count_policy`).
            "mlPolicy": {"numNodes": 1, "torch": {}},
            "template": {
                "spec": {
                    "replicatedJobs": [
                        {
                            "name": NODE,
                            "template": {
                                "metadata": {"labels": dict(ANCESTOR_LABEL)},
                                "spec": {"template": pod},
                            },
                        }
                    ]
                }
            },
        },
    }
    # Secure defaults (docs/security.md): the pod keeps only what the fabric adds; its
    # resources are the fabric's devices, and the reasons are a runtime's, not a test's.
    return secure_workload(
        manifest,
        default_size="none",
        host_network=runtime.get("host_network_reason"),
        privileged=runtime.get("privileged_reason"),
        reasons_for=RUNTIME_REASONS,
    )


def process_count_policy(runtime: str, processes: int) -> list[dict]:
    """A ValidatingAdmissionPolicy and its binding that refuse a TrainJob naming `runtime`
    without `spec.trainer.numProcPerNode`, naming the fix.

    Trainer starts one process per `nvidia.com/gpu` the node container requests, and one where
    it requests none (kubeflow/trainer pkg/runtime/framework/plugins/torch/torch.go,
    `EnforceMLPolicy`, numProcPerNode `auto`): GPUs from a DRA claim are not counted, so such a
    job would run 1 process per node, on 1 of its GPUs. Trainer's runtime API (2.2 and 2.3) has no
    per-runtime process count to default (its TorchMLPolicySource has no `numProcPerNode`; the
    TrainJob's `trainer.numProcPerNode` is the only place), so the job is refused at admission
    rather than run on one GPU. A ValidatingAdmissionPolicy is GA in admissionregistration.k8s.io/v1
    since Kubernetes 1.30."""
    name = f"{runtime}-processes"
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {
                "failurePolicy": "Fail",
                "matchConstraints": {
                    "resourceRules": [
                        {
                            "apiGroups": ["trainer.kubeflow.org"],
                            "apiVersions": ["*"],
                            # CREATE only: a job admitted before the policy existed is
                            # updated by Kueue (unsuspended) and must not be refused then.
                            "operations": ["CREATE"],
                            "resources": ["trainjobs"],
                        }
                    ]
                },
                "matchConditions": [
                    {
                        "name": "names-the-runtime",
                        "expression": f"object.spec.runtimeRef.name == '{runtime}' && "
                        "(!has(object.spec.runtimeRef.kind) || "
                        "object.spec.runtimeRef.kind == 'ClusterTrainingRuntime')",
                    }
                ],
                "validations": [
                    {
                        "expression": "has(object.spec.trainer) && "
                        "has(object.spec.trainer.numProcPerNode)",
                        "message": f"runtime {runtime} gives each node's GPUs through a DRA "
                        "claim, which Trainer does not count (it would start 1 process per "
                        f"node): set spec.trainer.numProcPerNode: {processes}, one process "
                        "per GPU of a node",
                        "reason": "Invalid",
                    }
                ],
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name},
            "spec": {"policyName": name, "validationActions": ["Deny"]},
        },
    ]
