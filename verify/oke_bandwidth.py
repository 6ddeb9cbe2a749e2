"""OKE's bandwidth benchmark (`make verify BANDWIDTH=1`; the run loop is `verify/bandwidth.py`): the
DRANET-on-OKE write-up's `all_reduce_perf` MPIJob over the aligned whole-node claim, then its two
jobs over the half-node claims at once (`gpu_fabric/oke/claims/nccl_jobs.py`), in the stack's RDMA
namespace, where the claim templates are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .benchmark import RUN_LABEL, Benchmark, CouldNotRun, Phase, Run
from .nccl_judge import Hardware


def oke_benchmark(stack: str, hardware: Hardware, cfg: Any, hosts: int) -> Benchmark:
    """oke-dranet: the MPIJob over the aligned whole-node claim, then two over the half-node
    claims at once (the DRANET-on-OKE write-up's runs)."""
    from gpu_fabric.oke.claims.nccl_jobs import mpijob_manifest
    from gpu_fabric.oke.claims.plan import Claim, plan_claim
    from gpu_fabric.oke.dranet.component import NAMESPACE as RDMA_NAMESPACE

    gpus, rails = cfg.shape.gpu_count, cfg.shape.rail_count
    shape = cfg.gpu_nodes.shape
    plans = [
        plan_claim(Claim(c.name, c.gpus, c.rails, c.aligned, c.roots), cfg.shape, shape)
        for c in cfg.claims
        if c.aligned and c.gpus and c.rails
    ]
    whole = next((p for p in plans if (p.gpus, p.rails) == (gpus, rails)), None)
    halves = [p for p in plans if (p.gpus * 2, p.rails * 2) == (gpus, rails)][:2]
    if whole is None and len(halves) < 2:
        raise CouldNotRun(
            f"the stack declares no aligned claim of {gpus} GPUs and {rails} rails nor two of "
            f"{gpus // 2} and {rails // 2} (gpu-fabric:claims); add them to run the tests"
        )

    def job(plan: Any) -> tuple[dict, Run]:
        name = f"bw-{plan.name}"
        manifest = mpijob_manifest(
            name, plan, gpus, hosts, shape, cfg.nccl_tests_image, RDMA_NAMESPACE
        )
        manifest["metadata"]["labels"] = {RUN_LABEL: stack}
        manifest["spec"]["runPolicy"]["backoffLimit"] = 0  # one launcher: its log is the result
        run = Run(
            name=name,
            namespace=RDMA_NAMESPACE,
            pods=f"training.kubeflow.org/job-name={name}",
            launcher=f"training.kubeflow.org/job-name={name},training.kubeflow.org/job-role=launcher",
            container="mpi-launcher",
            collective="all_reduce",
            nodes=hosts,
            gpus_per_node=plan.gpus,
        )
        return manifest, run

    phases = []
    for group in ([whole] if whole else [], halves if len(halves) == 2 else []):
        if group:
            jobs = [job(p) for p in group]
            phases.append(Phase([m for m, _ in jobs], [r for _, r in jobs]))
    return Benchmark(
        stack,
        hardware,
        f"all_reduce MPIJobs on {hosts} {shape} nodes (the DRANET-on-OKE write-up's): "
        + "; then ".join(" and ".join(r.name for r in p.runs) for p in phases),
        RDMA_NAMESPACE,
        [],
        phases,
    )


BUILDERS: dict[str, Callable[[str, Hardware, Any, int], Benchmark]] = {
    "oke-dranet": oke_benchmark,
}
"""The benchmark of each OKE fabric (the OCI shape's `platform`)."""
MIN_NODES = 2
"""The tests run across nodes."""
