"""The versions GKE moves: pools never rolled back after GKE upgrades them, and an optional
release channel with cluster-toolkit's maintenance exclusion."""

from __future__ import annotations

from tests.conftest import assert_single_rule, run_stack

CLUSTER = "gcp:container/cluster:Cluster"
NODE_POOL = "gcp:container/nodePool:NodePool"


def test_a_pinned_cluster_has_no_channel_and_its_pools_keep_the_versions_gke_moves():
    plan = run_stack()
    (cluster,) = plan.of_type(CLUSTER)
    assert cluster.inputs["releaseChannel"] == {"channel": "UNSPECIFIED"}
    assert "maintenancePolicy" not in cluster.inputs
    # A changed gke.version upgrades the control plane; nothing GKE moves is rolled back.
    assert cluster.ignore_changes == ["nodeConfig"]
    for pool in plan.of_type(NODE_POOL):
        assert pool.inputs["version"] == cluster.inputs["minMasterVersion"]
        assert pool.inputs["management"] == {"autoUpgrade": False, "autoRepair": True}
        # After GKE's end-of-support upgrade, `pulumi up` must not roll a pool back.
        assert pool.ignore_changes == ["version"], pool.name


def test_a_release_channel_holds_back_minor_and_node_upgrades_until_end_of_support():
    plan = run_stack({"gpu-fabric:gke.releaseChannel": "REGULAR"})
    (cluster,) = plan.of_type(CLUSTER)
    assert cluster.inputs["releaseChannel"] == {"channel": "REGULAR"}
    assert cluster.inputs["maintenancePolicy"] == {
        "dailyMaintenanceWindow": {"startTime": "09:00"},
        "maintenanceExclusions": [
            {
                "exclusionName": "no-minor-or-node-upgrades",
                "startTime": "2025-12-01T00:00:00Z",
                "exclusionOptions": {
                    "scope": "NO_MINOR_OR_NODE_UPGRADES",
                    "endTimeBehavior": "UNTIL_END_OF_SUPPORT",
                },
            }
        ],
    }
    assert cluster.ignore_changes == ["nodeConfig", "minMasterVersion"]
    for pool in plan.of_type(NODE_POOL):
        # GKE requires node auto-upgrade in a channel.
        assert pool.inputs["management"]["autoUpgrade"] is True, pool.name


def test_an_unknown_channel_is_refused():
    assert_single_rule(
        {"gpu-fabric:gke.releaseChannel": "regular"},
        "gpu-fabric:gke.releaseChannel",
        "regular",
        "REGULAR",
        "a3-prod",
    )
