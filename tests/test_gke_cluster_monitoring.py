"""What a GKE cluster sends to Cloud Monitoring (gpu_fabric/gke/cluster/): the GPUs' managed DCGM
metrics through managed Prometheus by default, none where a pool's driver is a bundle's, and the
JobSet metrics where GKE has them; refused alike from a stack file and by a hosted GkeCloud."""

from __future__ import annotations

import pytest

from tests.conftest import assert_single_rule, run_stack
from tests.hosted import hosted_reasons
from tests.stacks import stack_with_default_capacity

CLUSTER = "gcp:container/cluster:Cluster"
STACK = stack_with_default_capacity("a4x-highgpu-4g")  # a pool whose driver may come from a bundle


def monitoring_of(plan) -> dict:
    (cluster,) = plan.of_type(CLUSTER)
    return cluster.inputs["monitoringConfig"]


def test_dcgm_metrics_go_through_managed_prometheus_by_default():
    assert monitoring_of(run_stack({}, STACK)) == {
        "enableComponents": ["SYSTEM_COMPONENTS", "DCGM", "JOBSET"],
        "managedPrometheus": {"enabled": True},
    }


def test_a_bundle_driven_pool_gets_no_managed_dcgm_by_default():
    """GKE installs its own drivers for managed DCGM: not where a bundle installs them."""
    plan = run_stack({"gpu-fabric:gpuPool.driverInstall": "bundle"}, STACK)
    assert monitoring_of(plan)["enableComponents"] == ["SYSTEM_COMPONENTS", "JOBSET"]


def test_jobset_metrics_only_where_gke_has_them():
    from gpu_fabric.gke.cluster.component import monitoring_components
    from gpu_fabric.versions import gke_version_or_minor

    assert "JOBSET" in monitoring_components(gke_version_or_minor("1.32"), dcgm=True)
    assert "JOBSET" not in monitoring_components(gke_version_or_minor("1.31"), dcgm=True)
    old_patch = gke_version_or_minor("1.32.1-gke.1000000")
    assert "JOBSET" not in monitoring_components(old_patch, dcgm=False)


@pytest.mark.parametrize(
    "changes, monitoring, pool, says",
    [
        (
            {"gpu-fabric:gpuPool.driverInstall": "bundle", "gpu-fabric:gke.monitoring.dcgm": True},
            {"dcgm": True, "managed_prometheus": True},
            {"gpu_driver_version": "INSTALLATION_DISABLED"},
            "GKE's managed DCGM installs Google's GPU drivers",
        ),
        (
            {"gpu-fabric:gke.monitoring": {"dcgm": True, "managedPrometheus": False}},
            {"dcgm": True, "managed_prometheus": False},
            {},
            "GKE sends the DCGM metrics through managed Prometheus, which is off",
        ),
    ],
    ids=["bundle-driver", "no-managed-prometheus"],
)
def test_a_dcgm_that_cannot_work_is_refused_alike(changes, monitoring, pool, says):
    assert_single_rule(changes, "gpu-fabric:gke.monitoring.dcgm", True, says, STACK)
    changes_hosted = [(("monitoring",), monitoring)]
    if pool:
        changes_hosted += [(("gpu_pools", 0, key), value) for key, value in pool.items()]
    reasons = hosted_reasons("GkeCloud", *changes_hosted)
    assert list(reasons) == ["monitoring.dcgm"] and says in reasons["monitoring.dcgm"]


def test_a_hosted_cluster_that_says_nothing_gets_the_stacks_default():
    from tests.test_layer_inputs import _build

    (cluster,) = _build("GkeCloud").of_type(CLUSTER)
    assert "DCGM" in cluster.inputs["monitoringConfig"]["enableComponents"]
