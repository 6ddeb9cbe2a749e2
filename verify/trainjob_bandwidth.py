"""The bandwidth test as a user's job: a TrainJob in the training namespace that names the
fabric's runtime and nothing else of the fabric, admitted by Kueue through the LocalQueue, placed
by the runtime's topology request (`make verify BANDWIDTH=1`; `--upstream-pods` runs upstream's
NCCL test pods instead, `verify/bandwidth.py` says which builder).

The job runs `verify/allgather_bench.py` (PyTorch's all_gather over NCCL, printed as nccl-tests
prints it) with torchrun on every node; Kubeflow Trainer gives torchrun its node count, rank and
rendezvous through PET_* variables (kubeflow/trainer pkg/runtime/framework/plugins/torch). The
result is rank 0's log, judged against the catalog as nccl-tests' is. Afterwards the report
says where Kueue put the pods: at each Topology level, how many domains they span.
"""

from __future__ import annotations

from pathlib import Path

from gpu_fabric.workloads.runtime import NODE, TRAINER_API
from gpu_fabric.workloads.settings import TrainingQueueSettings

from . import allgather_bench
from .benchmark import RUN_LABEL, Benchmark, Phase, Run
from .nccl_judge import Hardware

JOB_NAME = "gpu-fabric-bandwidth"
JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name"
"""JobSet's label on every pod of a JobSet (Trainer names the JobSet after the TrainJob)."""
COMPLETION_INDEX_LABEL = "batch.kubernetes.io/job-completion-index"
"""The index of a pod of an Indexed Job: 0 is the first node, where torchrun's rank 0 runs."""


def job_command() -> list[str]:
    """bash writes the script, then torchrun runs it (bash, so that a runtime's `BASH_ENV`, the
    fabric's NCCL settings script, is sourced first)."""
    script = Path(allgather_bench.__file__).read_text()
    return [
        "bash",
        "-c",
        f"cat > /tmp/allgather_bench.py <<'SCRIPT'\n{script}SCRIPT\n"
        "torchrun /tmp/allgather_bench.py\n",
    ]


def trainjob(stack: str, queue: TrainingQueueSettings, nodes: int, gpus: int) -> dict:
    """The TrainJob: the runtime's name, the command, the node count and a process per GPU
    (Trainer counts only device-plugin GPUs for its default, docs/training-queue.md)."""
    return user_trainjob(stack, queue, JOB_NAME, job_command(), nodes, gpus)


def user_trainjob(
    stack: str, queue: TrainingQueueSettings, name: str, command: list[str], nodes: int, procs: int
) -> dict:
    """A TrainJob as a user writes one: in the training namespace, naming the fabric's runtime
    and nothing else of the fabric (no image: the runtime's), labelled as `make verify`'s."""
    return {
        "apiVersion": TRAINER_API,
        "kind": "TrainJob",
        "metadata": {"name": name, "namespace": queue["namespace"], "labels": {RUN_LABEL: stack}},
        "spec": {
            "runtimeRef": {"name": queue["runtime"]["name"]},
            "trainer": {"command": command, "numNodes": nodes, "numProcPerNode": procs},
        },
    }


def trainjob_benchmark(
    stack: str, hardware: Hardware, queue: TrainingQueueSettings, nodes: int
) -> Benchmark:
    gpus = hardware.gpus_per_node or 8
    pods = f"{JOBSET_NAME_LABEL}={JOB_NAME}"
    run = Run(
        name="all_gather",
        namespace=queue["namespace"],
        pods=pods,
        launcher=f"{pods},{COMPLETION_INDEX_LABEL}=0",
        container=NODE,
        collective="all_gather",
        nodes=nodes,
        gpus_per_node=gpus,
    )
    runtime = queue["runtime"]
    topology = runtime.get("topology")
    asked = (
        f", asking Kueue for {'one' if topology['required'] else 'as few as fit'} "
        f"{topology['level']} domain(s)"
        if topology
        else ""
    )
    return Benchmark(
        stack,
        hardware,
        f"all_gather as a user's TrainJob on {nodes} {hardware.machine} nodes: runtime "
        f"{runtime['name']}, LocalQueue {queue['namespace']}/{queue['local_queue']}{asked} "
        "(PyTorch all_gather over NCCL, verify/allgather_bench.py)",
        queue["namespace"],
        [],  # the training namespace is the stack's: nothing to create or delete but the job
        [Phase(objects=[trainjob(stack, queue, nodes, gpus)], runs=[run])],
        placement_levels=list(queue.get("topology_levels", [])),
    )
