"""What `make package-check` asks of the package installed with the GKE extra only (run with that
environment's Python, outside the checkout, so nothing is imported from the tree): it imports,
no other cloud's SDK came with it, its workload helpers work, and `gpu_fabric.testing` plans a
program of the user's own offline (`a3_program`, which tests/test_testing_module.py plans too),
and it carries only what users run: no vendored CRD and no upstream test pod (the repository's
tests/upstream/ and verify/upstream/)."""

import importlib.util
from pathlib import Path

import gpu_fabric
from gpu_fabric import GkeCloud, GkeFabric
from gpu_fabric.gke import PrimaryRanges, a3_high
from gpu_fabric.testing import plan


def a3_program() -> None:
    """A user's program: an A3 High cluster and its fabric from the preset, and an output."""
    import pulumi

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
    pulumi.export("clusterId", cloud.cluster_id)


def main() -> None:
    from gpu_fabric.registry import SPECS
    from gpu_fabric.workloads.kueue_config import kueue_values

    assert SPECS
    kueue_values(["training"], {})
    for other in ("pulumi_oci", "pulumi_alicloud"):
        assert importlib.util.find_spec(other) is None, f"the gke extra brought {other}"
    assert "site-packages" in str(gpu_fabric.__file__), gpu_fabric.__file__
    shipped = [p for p in Path(gpu_fabric.__file__).parent.rglob("*") if p.is_file()]
    for path in shipped:
        kinds = [line for line in _lines(path) if line.startswith("kind: CustomResourceDefinition")]
        assert not kinds and not path.name.startswith("nccl-test-"), f"the wheel ships {path}"
    planned = plan(a3_program)
    (cluster,) = planned.of_type("gcp:container/cluster:Cluster")
    assert cluster.inputs["name"] == "train", cluster.inputs["name"]
    print("gpu_fabric", gpu_fabric.__version__, "installed with the gke extra only;", end=" ")
    print(f"gpu_fabric.testing planned {len(planned.resources)} resources offline")


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.suffix in (".yaml", ".yml") else []


if __name__ == "__main__":
    main()
