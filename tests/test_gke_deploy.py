"""GKE deploys that must survive a second `pulumi up`: replacements of fixed-name resources,
upgrades of reserved pools, unique derived names, awaited rollouts, protected clusters."""

from __future__ import annotations

import re

import pytest

from offline import diff
from tests.conftest import DELETE, assert_single_rule, problems, run_stack, stack_values
from tests.test_diff import RULES, as_file, change_of

NODE_POOL = "gcp:container/nodePool:NodePool"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
ACCOUNT = "gcp:serviceaccount/account:Account"

# --- 1. fixed cloud names are deleted before they are replaced ---------------------------------


@pytest.mark.parametrize("stack", ["a3-prod", "a4x-prod"])
def test_fixed_name_resources_are_deleted_before_replacement(stack):
    plan = run_stack(stack=stack)
    fixed = [*plan.of_type(NODE_POOL), *plan.of_type(POLICY), *plan.of_type(ACCOUNT)]
    names = {r.inputs.get("name") or r.inputs.get("accountId") for r in fixed}
    assert "system" in names and len(plan.of_type(POLICY)) == 1
    assert [r.name for r in fixed if not r.delete_before_replace] == []
    assert all(r.as_json()["deleteBeforeReplace"] for r in fixed)


def test_a_replaced_node_pool_reads_deleted_first_with_the_nodes_it_drains():
    before = as_file(run_stack())
    result = diff.diff_plans(
        before, as_file(run_stack({"gpu-fabric:gpuPool.localSsd": False})), RULES
    )
    pool = change_of(result, "a3-prod-a3-highgpu")
    assert pool.action == "replace" and pool.delete_first and pool.nodes == 2
    report = diff.render_stack(result, RULES)
    assert (
        "- `a3-prod-a3-highgpu` (`gcp:container/nodePool:NodePool`): forced by "
        "`nodeConfig.ephemeralStorageLocalSsdConfig`; deleted first: drains 2 nodes"
    ) in report


def test_a_replaced_resource_without_delete_before_replace_does_not_say_so():
    before = as_file(run_stack())
    plain = {
        **before,
        "resources": [{**r, "deleteBeforeReplace": False} for r in before["resources"]],
    }
    after = as_file(run_stack({"gpu-fabric:gpuPool.localSsd": False}))
    after = {
        **after,
        "resources": [{**r, "deleteBeforeReplace": False} for r in after["resources"]],
    }
    report = diff.render_stack(diff.diff_plans(plain, after, RULES), RULES)
    assert "deleted first" not in report
    assert "forced by `nodeConfig.ephemeralStorageLocalSsdConfig`" in report


# --- 2. reserved pools upgrade in place; GPU pools get time to come up ---------------------------


def _gpu_pool(plan):
    (pool,) = [p for p in plan.of_type(NODE_POOL) if p.inputs["name"] != "system"]
    return pool


@pytest.mark.parametrize("stack", ["a4x-prod", "a3-ultra-prod", "a4-prod"])
def test_a_reserved_pool_upgrades_without_a_surge_node(stack):
    pool = _gpu_pool(run_stack(stack=stack))
    assert pool.inputs["upgradeSettings"] == {
        "strategy": "SURGE",
        "maxSurge": 0,
        "maxUnavailable": 1,
    }


def test_every_gpu_pool_upgrades_one_node_at_a_time_in_place_unless_configured():
    """GKE's default surge needs a node that a pool at its quota or reservation does not get."""
    for stack in ("a3-prod", "a3-mega-prod"):  # no reservation
        assert _gpu_pool(run_stack(stack=stack)).inputs["upgradeSettings"] == {
            "strategy": "SURGE",
            "maxSurge": 0,
            "maxUnavailable": 1,
        }
    configured = run_stack({"gpu-fabric:gpuPool.upgrade": {"maxSurge": 2, "maxUnavailable": 0}})
    assert _gpu_pool(configured).inputs["upgradeSettings"] == {
        "strategy": "SURGE",
        "maxSurge": 2,
        "maxUnavailable": 0,
    }
    # A reserved pool may be given a surge (a reservation with spare nodes).
    surged = run_stack({"gpu-fabric:gpuPool.upgrade": {"maxSurge": 1}}, stack="a4x-prod")
    assert _gpu_pool(surged).inputs["upgradeSettings"]["maxSurge"] == 1
    assert _gpu_pool(surged).inputs["upgradeSettings"]["maxUnavailable"] == 1


def test_gpu_pools_wait_long_enough_for_gpu_nodes(monkeypatch):
    import pulumi_gcp as gcp

    seen: dict[str, object] = {}
    real = gcp.container.NodePool

    class Spy(real):  # type: ignore[misc, valid-type]
        def __init__(self, resource_name, opts=None, **kwargs):
            seen[resource_name] = opts.custom_timeouts if opts else None
            super().__init__(resource_name, opts, **kwargs)

    monkeypatch.setattr(gcp.container, "NodePool", Spy)
    run_stack(cached=False)
    timeouts = seen["a3-prod-a3-highgpu"]
    assert (timeouts.create, timeouts.update, timeouts.delete) == ("60m", "60m", "30m")


# --- 3. derived names stay unique when they are cut ----------------------------------------------

LONG_CLUSTER = "gpu-fabric-a4x-production-cluster-east1"  # 39 characters


def _two_blocks(stack: str = "a4x-prod") -> dict:
    pool = stack_values(stack)["gpu-fabric:gpuPool"]
    return {
        "gpu-fabric:gke.name": LONG_CLUSTER,
        "gpu-fabric:gpuPool": DELETE,
        "gpu-fabric:gpuPools": [
            {**pool, "name": f"a4x-reservation-block-000{n}", "nodeCount": 2} for n in (1, 2)
        ],
    }


def test_long_names_are_cut_with_a_hash_and_stay_unique():
    assert len(LONG_CLUSTER) == 39
    plan = run_stack(_two_blocks(), stack="a4x-prod")
    names = sorted(p.inputs["name"] for p in plan.of_type(POLICY))
    assert len(set(names)) == 2 and all(len(n) <= 63 for n in names)
    assert all(
        re.fullmatch(r"gpu-fabric-a4x-production-cluster-east1-a4x-rese-[0-9a-f]{6}-compact", n)
        for n in names
    )
    # What plain truncation gave: one name for both.
    assert {
        f"{LONG_CLUSTER}-{p['name']}-compact"[:63] for p in _two_blocks()["gpu-fabric:gpuPools"]
    } == {f"{LONG_CLUSTER}-a4x-reservation-block-0"}
    (account,) = plan.of_type(ACCOUNT)
    assert re.fullmatch(r"gpu-fabric-a4x-pr-[0-9a-f]{6}-nodes", account.inputs["accountId"])


def test_placement_names_that_collide_are_refused(monkeypatch):
    from gpu_fabric.gke import from_stack

    monkeypatch.setattr(
        from_stack, "placement_policy_name", lambda c, p: f"{c}-{p}-compact"[:63].rstrip("-")
    )
    (problem,) = problems(_two_blocks(), stack="a4x-prod")
    assert problem.key == "gpu-fabric:gpuPools[1].name"
    assert problem.value == f"{LONG_CLUSTER}-a4x-reservation-block-0"
    assert "gpuPools[0] has this compact placement policy" in problem.message


@pytest.mark.parametrize(
    "stack", ["a3-prod", "a3-mega-prod", "a3-ultra-prod", "a4-prod", "a4x-prod"]
)
def test_committed_stacks_keep_their_derived_names(stack):
    """Their names are short: the hash never applies, so their plans do not change (a reserved
    A3 Ultra or A4 pool's policy when asked for: it has none by default)."""
    values = stack_values(stack)
    cluster, pool = values["gpu-fabric:gke"]["name"], values["gpu-fabric:gpuPool"]["name"]
    plan = run_stack({"gpu-fabric:gpuPool.compactPlacement": True}, stack=stack)
    (account,) = plan.of_type(ACCOUNT)
    assert account.inputs["accountId"] == f"{cluster[:23]}-nodes"
    assert [p.inputs["name"] for p in plan.of_type(POLICY)] == [
        f"{cluster}-{pool}-compact"[:63].rstrip("-")
    ]


# --- 4. an awaited rollout waits for the GPU nodes -----------------------------------------------

DAEMON_SET = "kubernetes:apps/v1:DaemonSet"


@pytest.mark.parametrize(
    ("stack", "daemon_sets"),
    [("a4x-prod", 1), ("a3-mega-prod", 2)],  # A3 Mega: the installer and the NRI injector
)
def test_awaited_daemon_sets_wait_for_the_gpu_node_pools(stack, daemon_sets):
    awaited = run_stack({"gpu-fabric:installer": {"awaitRollout": True}}, stack=stack)
    node_pool = _gpu_pool(awaited)
    waiting = awaited.of_type(DAEMON_SET)
    assert len(waiting) == daemon_sets
    assert all(awaited.depends_on(d, node_pool) for d in waiting)
    # Not awaited: they wait for nothing but the provider (a DaemonSet needs no nodes).
    plain = run_stack({"gpu-fabric:installer": {"awaitRollout": False}}, stack=stack)
    assert not any(plain.depends_on(d, _gpu_pool(plain)) for d in plain.of_type(DAEMON_SET))


def test_only_an_awaited_spec_waits():
    from gpu_fabric.gke.fabrics.nccl_installer import awaited_spec

    assert awaited_spec({"a": 1}, False, ["pool"]) == {"a": 1}
    assert awaited_spec({"a": 1}, True, None) == {"a": 1}
    assert not isinstance(awaited_spec({"a": 1}, True, ["pool"]), dict)  # an Output


# --- 5. a protected cluster; A3 Ultra's default driver -------------------------------------------

CLUSTER = "gcp:container/cluster:Cluster"


@pytest.mark.parametrize("stack", ["a3-prod", "a4x-prod"])
def test_deletion_protection_protects_the_cluster_in_pulumi_too(stack):
    (protected,) = run_stack(stack=stack).of_type(CLUSTER)
    assert protected.inputs["deletionProtection"] is True and protected.protect
    (unprotected,) = run_stack({"gpu-fabric:gke.deletionProtection": False}, stack=stack).of_type(
        CLUSTER
    )
    assert not unprotected.protect


def test_a3_ultra_default_driver_needs_a_gke_that_installs_r550():
    old = {"gpu-fabric:gke.version": "1.31.4-gke.1183000"}
    assert_single_rule(
        {**old, "gpu-fabric:gpuPool.gpuDriverVersion": "DEFAULT"},
        "gpu-fabric:gpuPool.gpuDriverVersion",
        "DEFAULT",
        "1.31.5-gke.1169000",
        "a3-ultra-prod",
    )
    # LATEST (the default) on that version, and DEFAULT from 1.31.5-gke.1169000, are fine.
    run_stack(old, stack="a3-ultra-prod")
    run_stack(
        {
            "gpu-fabric:gke.version": "1.31.5-gke.1169000",
            "gpu-fabric:gpuPool.gpuDriverVersion": "DEFAULT",
        },
        stack="a3-ultra-prod",
    )
    # A4 (R570 by default from its minimum version) has no such rule.
    run_stack(
        {"gpu-fabric:gpuPool.gpuDriverVersion": "DEFAULT"},
        stack="a4-prod",
    )


def test_a_hosted_pool_without_upgrade_settings_upgrades_one_node_at_a_time():
    from tests.test_layer_inputs import _build

    plan = _build("GkeCloud")
    (pool,) = [p for p in plan.of_type(NODE_POOL) if p.inputs["name"] != "system"]
    assert pool.inputs["upgradeSettings"] == {
        "strategy": "SURGE",
        "maxSurge": 0,
        "maxUnavailable": 1,
    }
