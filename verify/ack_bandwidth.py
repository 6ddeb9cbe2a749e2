"""ACK's bandwidth benchmark (`make verify BANDWIDTH=1`; the run loop is `verify/bandwidth.py`):
Alibaba's Lingjun RDMA guide's `hps-benchmark` Job (`gpu_fabric/ack/rdma/pods.py`). Its output is
not nccl-tests and the catalog has no threshold for it: the log is kept and the run "not judged".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpu_fabric.workload_security import SKIP

from .benchmark import NAMESPACE, RUN_LABEL, Benchmark, CouldNotRun, Phase, Run, namespace_manifest
from .nccl_judge import Hardware


def ack_benchmark(stack: str, hardware: Hardware, cfg: Any, hosts: int) -> Benchmark:
    """ack-lingjun: the hps-benchmark Job of Alibaba's Lingjun RDMA guide on one Lingjun node (it
    is not nccl-tests)."""
    from gpu_fabric.ack.rdma.pods import BENCHMARK_GPUS, BENCHMARK_NAME, benchmark_job

    if not cfg.images.benchmark:
        raise CouldNotRun(
            "the hps-benchmark Job needs an image (Alibaba's Lingjun RDMA guide leaves it out): "
            "set gpu-fabric:images.benchmark in the stack"
        )
    manifest = benchmark_job(
        cfg.images.benchmark, BENCHMARK_GPUS, cfg.rdma.non_host_network, {RUN_LABEL: stack}
    )
    name = f"bw-{BENCHMARK_NAME}"
    manifest["metadata"] = {
        "name": name,
        "namespace": NAMESPACE,
        "labels": {RUN_LABEL: stack},
        "annotations": {
            k: v for k, v in manifest["metadata"]["annotations"].items() if k.startswith(SKIP)
        },
    }
    manifest["spec"]["backoffLimit"] = 0
    run = Run(
        name=name,
        namespace=NAMESPACE,
        pods=f"job-name={name}",
        launcher=f"job-name={name}",
        container=BENCHMARK_NAME,
        collective=None,
        nodes=1,
        gpus_per_node=BENCHMARK_GPUS,
    )
    return Benchmark(
        stack,
        hardware,
        "the hps-benchmark Job of Alibaba's Lingjun RDMA guide with rdma/hca on one Lingjun node "
        "(not nccl-tests)",
        NAMESPACE,
        [namespace_manifest(NAMESPACE, stack)],
        [Phase([manifest], [run])],
    )


BUILDERS: dict[str, Callable[[str, Hardware, Any, int], Benchmark]] = {
    "ack-lingjun": ack_benchmark,
}
"""The benchmark of the Lingjun platform (its `gpu-fabric:platform`)."""
MIN_NODES = 1
"""The Job runs on one Lingjun node."""
