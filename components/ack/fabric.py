"""ACK's in-cluster fabric layer: the seed's RDMA benchmark Job, on demand.

The RDMA device plugin itself is an ACK add-on, a cloud resource (the cloud layer's). The Job waits
for the provider only: its pods stay Pending until a Lingjun node advertises `rdma/hca`, and
`pulumi up` does not wait for the Job (skipAwait).
"""

from typing import NotRequired, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from ..layers import child_options, declared_outputs, layer_token, whole_numbers
from .rdma_pods import BENCHMARK_GPUS, Benchmark, BenchmarkArgs


class AckFabricArgs(TypedDict):
    """What ACK's fabric layer puts in the cluster."""

    kubernetes_provider: k8s.Provider
    """The provider of the cluster to fill."""
    non_host_network: bool
    """Whether the RDMA add-on serves pods off the host network (the cloud layer's setting)."""
    benchmark_image: NotRequired[str]
    """Run the seed's hps-benchmark Job with this image (unset: no Job)."""


class AckFabric(pulumi.ComponentResource):
    """ACK's fabric layer: the RDMA benchmark Job, when an image is given."""

    benchmark_job: pulumi.Output[str]
    """The benchmark Job's name ('' when none)."""

    def __init__(
        self, name: str, args: AckFabricArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(layer_token(AckFabric), name, None, opts)
        args = whole_numbers(args)
        job: pulumi.Input[str] = ""
        if "benchmark_image" in args:
            benchmark = Benchmark(
                f"{name}-benchmark",
                BenchmarkArgs(
                    image=args["benchmark_image"],
                    gpus=BENCHMARK_GPUS,
                    non_host_network=args["non_host_network"],
                ),
                child_options(self, opts, [args["kubernetes_provider"]]),
            )
            job = benchmark.job.metadata.name
        self.benchmark_job = pulumi.Output.from_input(job)
        self.register_outputs(declared_outputs(self))
