"""The versions GKE moves: pools never rolled back after GKE upgrades them, and an optional
release channel with cluster-toolkit's maintenance exclusion."""

from __future__ import annotations

import pytest

from tests.conftest import assert_single_rule, run_stack

CLUSTER = "gcp:container/cluster:Cluster"
NODE_POOL = "gcp:container/nodePool:NodePool"


def test_a_pinned_cluster_has_no_channel_and_its_pools_keep_the_versions_gke_moves():
    plan = run_stack(
        {
            "gpu-fabric:gke.version": "1.33.5-gke.1862000",
            "gpu-fabric:gke.releaseChannel": "UNSPECIFIED",
        }
    )
    (cluster,) = plan.of_type(CLUSTER)
    assert cluster.inputs["minMasterVersion"] == "1.33.5-gke.1862000"
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


@pytest.mark.parametrize(
    ("stack", "channel"),
    [
        # A3 High's last COS-121 minor (1.33) stays offered longest on Extended.
        ("a3-prod", "EXTENDED"),
        # cluster-toolkit's GPU blueprints: Regular with the exclusion.
        ("a3-mega-prod", "REGULAR"),
        ("a3-ultra-prod", "REGULAR"),
        ("a4-prod", "REGULAR"),
        ("a4x-prod", "REGULAR"),
    ],
)
def test_a_cluster_is_on_its_machines_channel_by_default(stack, channel):
    plan = run_stack(stack=stack)
    (cluster,) = plan.of_type(CLUSTER)
    assert cluster.inputs["releaseChannel"] == {"channel": channel}
    exclusion = cluster.inputs["maintenancePolicy"]["maintenanceExclusions"][0]
    assert exclusion["exclusionOptions"]["scope"] == "NO_MINOR_OR_NODE_UPGRADES"


def test_an_unknown_channel_is_refused():
    assert_single_rule(
        {"gpu-fabric:gke.releaseChannel": "regular"},
        "gpu-fabric:gke.releaseChannel",
        "regular",
        "REGULAR",
        "a3-prod",
    )


# --- a minor, resolved at preview -------------------------------------------------------------


def test_a_minor_is_gkes_newest_patch_of_it_for_the_cluster_and_every_pool(monkeypatch):
    from gpu_fabric.gke import offline_mocks

    asked: list[dict] = []
    call = offline_mocks.CloudMocks.call

    def recording(self, token, args):
        if token.endswith("getEngineVersions"):
            asked.append(dict(args))
        return call(self, token, args)

    monkeypatch.setattr(offline_mocks.CloudMocks, "call", recording)
    plan = run_stack({"gpu-fabric:gke.version": "1.33"}, cached=False)
    # A trailing dot, so that 1.3 could not match 1.30 (cluster-toolkit's advice).
    assert asked == [{"location": "us-central1", "versionPrefix": "1.33."}]
    (cluster,) = plan.of_type(CLUSTER)
    assert cluster.inputs["minMasterVersion"] == "1.33.100-gke.1000000"
    assert {p.inputs["version"] for p in plan.of_type(NODE_POOL)} == {"1.33.100-gke.1000000"}
    # It moves with GKE's releases: applied at creation only.
    assert cluster.ignore_changes == ["nodeConfig", "minMasterVersion"]


def test_a_channel_takes_its_own_newest_patch(monkeypatch):
    from gpu_fabric.gke import offline_mocks

    def call(self, token, args):
        if token.endswith("getEngineVersions"):
            versions = offline_mocks.engine_versions(args["versionPrefix"])
            versions["releaseChannelLatestVersion"]["STABLE"] = "1.33.5-gke.1862000"
            return versions
        return None

    monkeypatch.setattr(offline_mocks.CloudMocks, "call", call)
    changes = {"gpu-fabric:gke.version": "1.33", "gpu-fabric:gke.releaseChannel": "STABLE"}
    (cluster,) = run_stack(changes, cached=False).of_type(CLUSTER)
    assert cluster.inputs["minMasterVersion"] == "1.33.5-gke.1862000"


def test_a_resolved_patch_below_the_fabric_floor_fails_the_preview(monkeypatch):
    import pytest

    from gpu_fabric.gke import offline_mocks

    def call(self, token, args):
        if token.endswith("getEngineVersions"):
            return offline_mocks.engine_versions(args["versionPrefix"], patch="1-gke.1")
        return None

    monkeypatch.setattr(offline_mocks.CloudMocks, "call", call)
    with pytest.raises(Exception, match="gke.version 1.29 resolves to 1.29.1-gke.1") as err:
        run_stack({"gpu-fabric:gke.version": "1.29"}, cached=False)
    assert "below the gpudirect-tcpx floor 1.29.3-gke.1093000" in str(err.value)
    assert "pin a full version at or above the floor" in str(err.value)


def test_a_minor_below_the_machines_oldest_is_refused_before_anything_is_read():
    assert_single_rule(
        {"gpu-fabric:gke.version": "1.26"},
        "gpu-fabric:gke.version",
        "1.26",
        "needs 1.27 or newer",
        "a3-prod",
    )


def test_a_resolved_patch_is_checked_for_gkes_default_driver_too():
    from gpu_fabric.gke.engine_versions import floor_problems

    pool = {"name": "p", "machine_type": "a3-ultragpu-8g", "gpu_driver_version": "DEFAULT"}
    assert floor_problems("1.31.4-gke.1183000", [pool]) == [
        "p: GKE 1.31.4-gke.1183000's default GPU driver is too old for a3-ultragpu-8g (it needs "
        "R550 or newer, GKE's default only from 1.31.5-gke.1169000); use gpuDriverVersion LATEST, "
        "or GKE 1.31.5-gke.1169000 or newer"
    ]
    assert floor_problems("1.31.4-gke.1183000", [{**pool, "gpu_driver_version": "LATEST"}]) == []


def test_a_minor_gke_no_longer_offers_warns_and_the_preview_goes_on(monkeypatch):
    """The minor is a creation floor: a running cluster is not broken by GKE dropping it."""
    from gpu_fabric.gke import offline_mocks

    monkeypatch.setattr(offline_mocks.CloudMocks, "call", lambda self, token, args: None)
    plan = run_stack({"gpu-fabric:gke.version": "1.33"}, cached=False)
    (cluster,) = plan.of_type(CLUSTER)
    assert cluster.inputs["minMasterVersion"] == "1.33"
    assert "minMasterVersion" in cluster.ignore_changes
    (warning,) = [w for w in plan.warnings if "GKE offers no 1.33 version" in w]
    assert "in the EXTENDED channel any more: a running cluster keeps what it runs" in warning
    assert "move gke.version to a minor `gcloud container get-server-config` lists" in warning
