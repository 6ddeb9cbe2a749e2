"""What `make package-check` asks of the package installed with the GKE extra only (run with that
environment's Python, outside the checkout, so nothing is imported from the tree): it imports,
no other cloud's SDK came with it, its workload helpers work, and `gpu_fabric.testing` plans a
program of the user's own offline."""

import importlib.util

import gpu_fabric
from gpu_fabric import GkeCloud, GkeFabric
from gpu_fabric.gke import PrimaryRanges, a3_high
from gpu_fabric.registry import SPECS
from gpu_fabric.testing import plan
from gpu_fabric.workloads.kueue_config import kueue_values

assert SPECS and GkeFabric
kueue_values("training", {})
assert importlib.util.find_spec("pulumi_oci") is None, "the gke extra brought pulumi-oci"
assert importlib.util.find_spec("pulumi_alicloud") is None, "the gke extra brought pulumi-alicloud"
assert gpu_fabric.__file__ and "site-packages" in gpu_fabric.__file__, gpu_fabric.__file__


def program() -> None:
    a3 = a3_high(
        "train",
        project="my-project",
        region="us-central1",
        zone="us-central1-c",
        version="1.33",
        gpu_subnets=[f"192.168.{n}.0/24" for n in range(1, 5)],
        primary=PrimaryRanges("10.0.0.0/20", "10.64.0.0/19", "10.65.0.0/19"),
    )
    cloud = GkeCloud("train", a3.cloud_args)
    GkeFabric("train", a3.fabric_args(cloud))


planned = plan(program)
(cluster,) = planned.of_type("gcp:container/cluster:Cluster")
assert cluster.inputs["name"] == "train", cluster.inputs["name"]
print("gpu_fabric", gpu_fabric.__version__, "installed with the gke extra only;", end=" ")
print(f"gpu_fabric.testing planned {len(planned.resources)} resources offline")
