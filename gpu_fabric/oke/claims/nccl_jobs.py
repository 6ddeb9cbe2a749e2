"""The DRANET-on-OKE write-up's NCCL `all_reduce_perf` MPIJobs over aligned claims (optional).

One MPIJob per aligned claim shape, with the write-up's NCCL settings. A claim that takes every GPU
of a node runs the write-up's `nccl-dranet-aligned` (4 to 8 GiB, two sizes); a claim that takes
part of a node runs its `nccl-dranet-a` (8 GiB, 300 iterations, INIT and NET logs), one worker per
node. The MPIJob CRD comes from the Kubeflow MPI Operator, which gpu-fabric does not install: the
jobs wait for its CRD (a CRD gate).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulumi

from ...catalog import catalog
from ...crd_gate import CrdGate, CrdGateArgs
from ...k8s_objects import custom_resource
from ...nvidia import GPU_TOLERATION
from ...workload_security import secure_workload
from .component import INSTANCE_TYPE_LABEL, ClaimPlan, with_dra_claim

MPIJOB_CRDS = ["mpijobs.kubeflow.org"]
# The write-up: UCX kept off the rails (TCP on eth0), after the shape's RoCE settings (catalog
# `oci_shapes.<shape>.nccl_env`) in every run.
UCX_SETTINGS = ["UCX_TLS=tcp", "UCX_NET_DEVICES=eth0"]


SHM_VOLUME = {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "32Gi"}}
"""The write-up's workers' shared memory for NCCL (`/dev/shm`, 32 GiB of the node's memory)."""
SHM_MOUNT = {"name": "shm", "mountPath": "/dev/shm"}


def nccl_settings(shape: str) -> list[str]:
    """What every rank of the write-up's runs gets with `mpirun -x`."""
    nccl = catalog().oci_shapes[shape].nccl_env
    return [*(f"{name}={value}" for name, value in nccl.items()), *UCX_SETTINGS]


WAIT_FOR_WORKERS = """\
until (for host in $(awk '{print $1}' /etc/mpi/hostfile); do ssh -o ConnectTimeout=5 -o \
StrictHostKeyChecking=no "$host" exit 2>/dev/null || exit 1; done); do
  echo "Waiting for workers to be ready..."
  sleep 5
done
"""


def launcher_script(gpus: int, whole_node: bool, shape: str) -> str:
    """The launcher script of the DRANET-on-OKE write-up for `gpus` GPUs per node of `shape`."""
    lines = [
        "set -e -o pipefail",
        f"NUM_GPUS={gpus}",
        "NUM_HOSTS=$(sed -n '$=' /etc/mpi/hostfile)",
        "NP=$((NUM_HOSTS * NUM_GPUS))",
        "# shellcheck disable=SC2013",
        WAIT_FOR_WORKERS.rstrip("\n"),
    ]
    if whole_node:
        lines.append(
            "# The 40 GB GPUs cannot hold 16 GiB buffers with validation (-c 1), so the test "
            "stops at 8 GiB."
        )
    mpirun = [
        "mpirun --allow-run-as-root --hostfile /etc/mpi/hostfile",
        "-mca coll ^hcoll",
        '-np "$NP" -npernode "$NUM_GPUS" --bind-to numa',
        "-x NCCL_DEBUG=WARN" if whole_node else "-x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET",
        *(f"-x {setting}" for setting in nccl_settings(shape)),
        "/workspace/nccl-tests/build/all_reduce_perf "
        + ("-b 4G -e 8G -f 2 -g 1 -c 1" if whole_node else "-b 8G -e 8G -n 300 -g 1 -c 1"),
    ]
    lines.append(" \\\n  ".join(mpirun))
    return "\n".join(lines) + "\n"


def mpijob_manifest(
    name: str,
    plan: ClaimPlan,
    node_gpus: int,
    workers: int,
    shape: str,
    image: str,
    namespace: pulumi.Input[str],
) -> dict:
    """An MPIJob whose workers each get one claim of `plan` (the write-up's jobs, names aside)."""
    whole_node = plan.gpus == node_gpus
    worker: dict = {
        "spec": {
            "nodeSelector": {INSTANCE_TYPE_LABEL: shape},
            "tolerations": [dict(GPU_TOLERATION)],
            "volumes": [SHM_VOLUME],
            "containers": [
                {
                    "name": "mpi-worker",
                    "image": image,
                    "command": ["/bin/bash", "-c", "mkdir -p /var/run/sshd; /usr/sbin/sshd -D"],
                    "volumeMounts": [SHM_MOUNT],
                }
            ],
        }
    }
    if not whole_node:
        # One worker on each node (as in the write-up), so that two jobs can share the nodes.
        worker["spec"]["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {
                            "matchLabels": {
                                "training.kubeflow.org/job-name": name,
                                "training.kubeflow.org/job-role": "worker",
                            }
                        },
                        "topologyKey": "kubernetes.io/hostname",
                    }
                ]
            }
        }
    # The write-up passes NCCL's settings to every rank with `mpirun -x`, not in the workers' env.
    worker = with_dra_claim(worker, plan.name, shape, nccl_env=False)
    launcher = {
        "spec": {
            "containers": [
                {
                    "name": "mpi-launcher",
                    "image": image,
                    "command": ["bash", "-c"],
                    "args": [launcher_script(plan.gpus, whole_node, shape)],
                }
            ]
        }
    }
    job: dict = {
        "apiVersion": "kubeflow.org/v2beta1",
        "kind": "MPIJob",
        "metadata": {"name": name},
        "spec": {
            "slotsPerWorker": plan.gpus,
            "runPolicy": {"cleanPodPolicy": "Running"},
            "sshAuthMountPath": "/root/.ssh",
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "template": launcher},
                "Worker": {"replicas": workers, "template": worker},
            },
        },
    }
    # The workers run sshd for mpirun: they keep the runtime's default capabilities.
    job = secure_workload(job, {"mpi-launcher": "small"}, default_capabilities=["mpi-worker"])
    job["metadata"]["namespace"] = namespace  # an output: set once the rest is copied
    return job


@dataclass(frozen=True)
class NcclJobsArgs:
    plans: list[ClaimPlan]
    """The aligned claims to run a job over."""
    node_gpus: int
    """GPUs per node (the shape's)."""
    workers: int
    """Worker pods (nodes) per job."""
    shape: str
    """The GPU shape the jobs run on."""
    image: str
    """Image of the NCCL tests."""
    namespace: pulumi.Input[str]
    """Namespace of the jobs."""
    kubeconfig: pulumi.Input[str]
    """Kubeconfig for the CRD gate (the MPIJob CRD)."""
    cluster_id: pulumi.Input[str]
    """Re-runs the gate when the cluster is replaced."""
    claim_templates: Mapping[str, pulumi.Resource]
    """Claim template resources by claim name: each job waits for its own."""


class NcclJobs(pulumi.ComponentResource):
    """`nccl-<claim>` MPIJobs, created once the MPI Operator's CRD is served."""

    def __init__(self, name: str, args: NcclJobsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-fabric:oke:NcclJobs", name, None, opts)
        gate = CrdGate(
            f"{name}-crds",
            CrdGateArgs(MPIJOB_CRDS, args.kubeconfig, args.cluster_id, timeout="30m"),
            pulumi.ResourceOptions(parent=self),
        )
        for plan in args.plans:
            template = args.claim_templates[plan.name]
            after = pulumi.ResourceOptions(parent=self, depends_on=[gate, template])
            job = f"nccl-{plan.name}"
            manifest = mpijob_manifest(
                job, plan, args.node_gpus, args.workers, args.shape, args.image, args.namespace
            )
            custom_resource(f"{name}-{job}", manifest, after)
        self.register_outputs({})
