"""`make diff`: what a change does to a stack, with replacements flagged and secrets masked."""

from __future__ import annotations

import collections.abc
import json
import subprocess
import typing

import pytest
from pulumi import _types

from offline import diff
from offline.engine import STACKS_DIR, Plan, Registration
from tests.conftest import run_stack
from tests.test_provider_inputs import SDKS, args_class

NODE_POOL = "gcp:container/nodePool:NodePool"

RULES = diff.ReplaceRules.load()

# What the OKE stack (built concurrently) creates, so the coverage holds once it lands.
OKE_TYPES = [
    "oci:Core/vcn:Vcn",
    "oci:Core/subnet:Subnet",
    "oci:Core/natGateway:NatGateway",
    "oci:Core/serviceGateway:ServiceGateway",
    "oci:Core/internetGateway:InternetGateway",
    "oci:Core/routeTable:RouteTable",
    "oci:Core/networkSecurityGroup:NetworkSecurityGroup",
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule",
    "oci:Core/securityList:SecurityList",
    "oci:ContainerEngine/cluster:Cluster",
    "oci:ContainerEngine/nodePool:NodePool",
    "oci:Core/computeCluster:ComputeCluster",
    "oci:Core/instance:Instance",
    "oci:Identity/dynamicGroup:DynamicGroup",
    "oci:Identity/policy:Policy",
    "kubernetes:helm.sh/v3:Release",
    "kubernetes:resource.k8s.io/v1:DeviceClass",
    "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate",
    "kubernetes:core/v1:Namespace",
    "kubernetes:core/v1:ConfigMap",
    "kubernetes:kubeflow.org/v2beta1:MPIJob",
]


def as_file(plan: Plan) -> dict:
    """The plan as `make plan` writes it (build/plan/<stack>.json)."""
    return {
        "stack": plan.stack,
        "resources": [r.as_json() for r in plan.resources],
        "outputs": {
            k: "[secret]" if k in plan.secret_outputs else v for k, v in plan.outputs.items()
        },
    }


@pytest.fixture(scope="module")
def a3_file() -> dict:
    return as_file(run_stack())


def diff_with(base: dict, changes: dict, stack: str = "a3-prod") -> diff.StackDiff:
    return diff.diff_plans(base, as_file(run_stack(changes, stack=stack)), RULES)


def change_of(result: diff.StackDiff, name: str) -> diff.ResourceChange:
    (match,) = [c for c in result.changes if c.name == name]
    return match


def test_nothing_changed(a3_file):
    result = diff.diff_plans(a3_file, a3_file, RULES)
    assert result.changes == [] and result.outputs == []
    assert diff.render_stack(result, RULES) == "## Stack `a3-prod`: no changes\n"


def test_an_in_place_change_names_the_resource_and_field(a3_file):
    result = diff_with(a3_file, {"gpu-fabric:gpuPool.nodeCount": 3})
    # The pool grows, and in the same update the training queue's GPU quota (8 per node), and the
    # wait for usable GPU nodes runs again for the new count (a command's trigger replaces it).
    change, wait, quota = sorted(result.changes, key=lambda c: c.type != NODE_POOL)
    assert (wait.name, wait.action) == ("a3-prod-gpu-nodes-usable-wait", "replace")
    assert ("triggers[4]", 2, 3, "triggers") in [
        (f.path, f.before, f.after, f.forces) for f in wait.fields
    ]
    assert (change.name, change.action) == ("a3-prod-a3-highgpu", "update")
    assert [(f.path, f.before, f.after, f.forces) for f in change.fields] == [
        ("nodeCount", 2, 3, None)
    ]
    assert (quota.name, quota.action) == ("a3-prod-training-queue-cluster-queue", "update")
    assert [(f.path, f.before, f.after) for f in quota.fields] == [
        # covered: cpu, memory (unbounded), nvidia.com/gpu
        ("spec.resourceGroups[0].flavors[0].resources[2].nominalQuota", 16, 24)
    ]
    report = diff.render_stack(result, RULES)
    assert "### Update in place: `a3-prod-a3-highgpu` (`gcp:container/nodePool:NodePool`)" in report
    assert "| `nodeCount` | `2` | `3` |  |" in report
    # Replaced: only the wait, which runs again (no cloud or cluster object).
    assert "**REPLACE** 1 x `command:local:Command` (`a3-prod-gpu-nodes-usable-wait`)" in report


def test_a_gpu_vpc_mtu_change_updates_it_in_place():
    # A3 Mega's GPU NICs take MTU 8244 or 8896 (A3 High's only 8244). terraform-provider-google-beta
    # 8.0 (what pulumi-gcp 10.x bridges) has no ForceNew on google_compute_network's mtu: the VPC is
    # patched in place (tools/replacements_sources.yaml; the hand-kept table listed it as forcing).
    stack = "a3-mega-prod"
    result = diff_with(
        as_file(run_stack(stack=stack)), {"gpu-fabric:network.nics.gpu.mtu": 8896}, stack
    )
    network = change_of(result, f"{stack}-net-1-network")
    assert (network.action, network.reason) == ("update", "")
    assert [(f.path, f.before, f.after) for f in network.fields] == [("mtu", 8244, 8896)]
    assert result.of_action("replace") == []
    report = diff.render_stack(result, RULES)
    assert "> [!CAUTION]" not in report
    assert "| `mtu` | `8244` | `8896` |  |" in report


def _edited(plan: dict, type_: str, edit: typing.Callable[[dict], None]) -> dict:
    """A copy of the plan file with `edit` applied to the inputs of every resource of `type_`."""
    plan = json.loads(json.dumps(plan))
    for resource in plan["resources"]:
        if resource["type"] == type_:
            edit(resource["inputs"])
    return plan


def test_one_mtu_change_on_every_gpu_vpc_is_one_table(a3_file):
    networks = [f"a3-prod-net-{n}-network" for n in range(1, 5)]

    def mtu(inputs: dict) -> None:
        if inputs.get("mtu") == 8244:  # the GPU VPCs, not the primary network
            inputs["mtu"] = 8896

    result = diff.diff_plans(a3_file, _edited(a3_file, NETWORK, mtu), RULES)
    assert sorted(c.name for c in result.changes if c.fields) == networks
    # An in-place update since google-beta 8.0 (mtu is not ForceNew): nothing follows from it.
    assert {c.action for c in result.changes} == {"update"}
    report = diff.render_stack(result, RULES)
    assert report.count("| `mtu` | `8244` | `8896` |  |") == 1
    assert report.count("| input | before | after | |") == 1
    names = ", ".join(f"`{n}`" for n in networks)
    assert f"### Update in place: {names} (`{NETWORK}`)\n" in report


def test_identical_updates_share_one_table_and_different_ones_do_not(a3_file):
    firewall = "gcp:compute/firewall:Firewall"

    def no_icmp(inputs: dict) -> None:
        inputs["allows"] = inputs["allows"][:2]
        if inputs["name"] == "a3-prod-internal-4":
            inputs["sourceRanges"] = ["192.168.4.0/23"]

    result = diff.diff_plans(a3_file, _edited(a3_file, firewall, no_icmp), RULES)
    assert {c.action for c in result.changes} == {"update"} and len(result.changes) == 4
    report = diff.render_stack(result, RULES)
    three = ", ".join(f"`a3-prod-net-{n}-firewall`" for n in range(1, 4))
    assert f"### Update in place: {three} (`{firewall}`)\n" in report
    assert f"### Update in place: `a3-prod-net-4-firewall` (`{firewall}`)\n" in report
    assert report.count("### Update in place") == 2
    assert report.count('| `allows[2].protocol` | `"icmp"` | (absent) |  |') == 2
    assert report.count("`sourceRanges`") == 1


def test_a_replace_forcing_node_pool_field_is_flagged(a3_file):
    result = diff_with(a3_file, {"gpu-fabric:gpuPool.localSsd": False})
    pool = change_of(result, "a3-prod-a3-highgpu")
    assert pool.action == "replace"
    assert pool.reason == "forced by `nodeConfig.ephemeralStorageLocalSsdConfig`"
    (field,) = pool.fields
    assert (field.path, field.before, field.after) == (
        "nodeConfig.ephemeralStorageLocalSsdConfig.localSsdCount",
        16,
        diff.ABSENT,
    )
    assert "`16` | (absent) | **forces replacement**" in diff.render_stack(result, RULES)


def test_moving_the_primary_subnet_replaces_the_cluster_and_everything_in_it(a3_file):
    widened = diff_with(a3_file, {"gpu-fabric:network.primary.subnetCidr": "10.0.0.0/19"})
    assert [(c.name, c.action) for c in widened.changes] == [("a3-prod-primary-sub", "update")]

    moved = diff_with(a3_file, {"gpu-fabric:network.primary.subnetCidr": "10.2.0.0/20"})
    cluster = next(c for c in moved.changes if c.type == "gcp:container/cluster:Cluster")
    assert (cluster.action, cluster.reason) == (
        "replace",
        "`subnetwork` comes from a3-prod-primary-sub (replaced)",
    )
    assert change_of(moved, "a3-prod-k8s").action == "replace"
    network_object = change_of(moved, "a3-prod-networks-network-vpc1")
    assert network_object.reason == "its provider a3-prod-k8s is replaced"
    assert change_of(moved, "a3-prod-a3-highgpu").action == "replace"
    assert "every workload, node pool" in diff.render_stack(moved, RULES)


def test_added_and_removed_resources(a3_file):
    with_smoke_test = as_file(run_stack({"gpu-fabric:smokeTest": True}))
    added = diff.diff_plans(a3_file, with_smoke_test, RULES)
    assert {c.action for c in added.changes} == {"create"}
    pods = sorted(c.name for c in added.changes if c.type == "kubernetes:core/v1:Pod")
    assert pods == ["a3-prod-nccl-test-nccl-test-host-1", "a3-prod-nccl-test-nccl-test-host-2"]
    removed = diff.diff_plans(with_smoke_test, a3_file, RULES)
    assert {c.name for c in removed.of_action("delete")} == {c.name for c in added.changes}
    report = diff.render_stack(removed, RULES)
    assert "### Remove" in report and "- `a3-prod-nccl-test-nccl-test-host-1`" in report


def _provider(kubeconfig: str) -> dict:
    registration = Registration(
        urn="urn:pulumi:s::p::pulumi:providers:kubernetes::k8s",
        type="pulumi:providers:kubernetes",
        name="k8s",
        parent="",
        custom=True,
        provider="",
        dependencies=[],
        property_dependencies={},
        inputs={"kubeconfig": kubeconfig, "clusterIdentifier": "c"},
        protect=False,
        delete_before_replace=False,
        ignore_changes=[],
        secret_inputs=["kubeconfig"],
    )
    return {"stack": "s", "resources": [registration.as_json()]}


def test_a_secret_change_shows_without_its_values():
    old, new = _provider("token: hunter2"), _provider("token: swordfish")
    assert "hunter2" not in json.dumps(old)  # the plan file masks it
    result = diff.diff_plans(old, new, RULES)
    (change,) = result.changes
    (field,) = change.fields
    assert (change.action, field.path, field.secret) == ("update", "kubeconfig", True)
    report = diff.render_stack(result, RULES)
    assert "| `kubeconfig` | changed (secret) | |  |" in report
    assert "hunter2" not in report and "swordfish" not in report and "[secret]" not in report
    assert diff.diff_plans(old, _provider("token: hunter2"), RULES).changes == []


def test_the_outputs_table_names_outputs_and_says_which_are_new_or_removed(a3_file):
    changed = json.loads(json.dumps(a3_file))
    changed["outputs"]["clusterName"] = "a3-renamed"
    report = diff.render_stack(diff.diff_plans(a3_file, changed, RULES), RULES)
    assert "### Stack outputs\n\n| output | before | after |\n" in report
    assert '| `clusterName` | `"a3-prod"` | `"a3-renamed"` |' in report
    assert "| input |" not in report

    new_stack = diff.diff_plans({"stack": "a3-prod", "resources": []}, a3_file, RULES)
    report = diff.render_stack(new_stack, RULES)
    assert "| `kubeconfig` | new | (secret) |" in report
    assert '| `clusterName` | new | `"a3-prod"` |' in report
    assert "changed (secret)" not in report and "(absent)" not in report

    gone = diff.render_stack(
        diff.diff_plans(a3_file, {"stack": "a3-prod", "resources": []}, RULES), RULES
    )
    assert "| `kubeconfig` | (secret) | removed |" in gone
    assert '| `clusterName` | `"a3-prod"` | removed |' in gone
    assert "changed (secret)" not in gone


def test_a_plan_file_without_secret_fingerprints_compares_only_what_is_secret():
    old, new = _provider("a"), _provider("b")
    del old["resources"][0]["secretDigests"]
    assert diff.diff_plans(old, new, RULES).changes == []


def test_a_widened_subnet_range_updates_and_any_other_range_replaces():
    subnet = "gcp:compute/subnetwork:Subnetwork"
    assert RULES.forcing_field(subnet, "ipCidrRange", "10.0.0.0/24", "10.0.0.0/23") is None
    assert RULES.forcing_field(subnet, "ipCidrRange", "10.0.0.0/23", "10.0.0.0/24") == (
        "ipCidrRange"
    )
    assert RULES.forcing_field(subnet, "ipCidrRange", "10.0.0.0/24", "10.0.1.0/24") == (
        "ipCidrRange"
    )


def test_a_kubernetes_object_rename_replaces_it():
    rule = RULES.forcing_field
    assert rule("kubernetes:networking.gke.io/v1:Network", "metadata.name", "a", "b")
    assert rule("kubernetes:networking.gke.io/v1:Network", "spec.type", "L3", "Device") is None
    assert rule("kubernetes:core/v1:ConfigMap", "metadata.namespace", "a", "b")


def test_the_cli_compares_two_plan_files(tmp_path, a3_file, capsys):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(a3_file))
    changed = json.loads(json.dumps(a3_file))
    for resource in changed["resources"]:
        if resource["name"] == "a3-prod-system":
            resource["inputs"]["nodeCount"] = 2
    new.write_text(json.dumps(changed))
    assert diff.main([str(old), str(new), "--out", str(tmp_path / "r.md")]) == 0
    out = capsys.readouterr().out
    assert "## Stack `a3-prod`: 0 to replace, 1 to update, 0 to add, 0 to remove" in out
    assert (tmp_path / "r.md").read_text() == out
    assert diff.main([str(tmp_path / "nope.json"), str(new)]) == 2


STACKS = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in STACKS_DIR.glob("Pulumi.*.yaml"))


def _uncovered(types: set[str]) -> list[str]:
    return sorted(t for t in types if not RULES.covers(t))


@pytest.mark.parametrize("stack", STACKS)
def test_every_resource_type_a_stack_creates_is_covered(stack):
    assert _uncovered({r.type for r in run_stack(stack=stack).resources}) == []


def test_the_optional_and_oke_resource_types_are_covered():
    # The optional Pods, where the platform has them, and every type the OKE layers can create.
    with_options = run_stack({"gpu-fabric:smokeTest": True})
    types = {r.type for r in with_options.resources} | set(OKE_TYPES)
    assert "gcp:container/nodePool:NodePool" in types
    assert _uncovered(types) == []


def test_every_rule_says_what_a_replacement_costs_and_its_source():
    for type_, rule in RULES.types.items():
        assert set(rule) >= {"replace", "cost", "source"}, type_
        assert rule["source"].strip() and rule["cost"].strip(), type_


@pytest.mark.parametrize(
    "type_", [t for t in RULES.types if t.split(":")[0] in SDKS], ids=lambda t: t.split(":")[-1]
)
def test_every_listed_field_is_an_input_of_the_sdk(type_):
    """A misspelled field would silently never match; check each against the typed Args."""
    for path in RULES.fields(type_):
        cls: typing.Any = args_class(type_)
        for part in path.split("."):
            if typing.get_origin(cls) in (dict, collections.abc.Mapping):
                break  # a map (e.g. instance metadata) takes any key
            types = _types.input_type_types(cls)
            assert part in types, f"{type_}: {path}"
            cls = _types.unwrap_type(types[part])
            if typing.get_origin(cls) in (list, typing.Sequence, collections.abc.Sequence):
                (cls,) = typing.get_args(cls)
                cls = _types.unwrap_type(cls)


def test_a_stack_on_one_side_only_and_a_failed_plan(tmp_path, a3_file):
    base, head = tmp_path / "base", tmp_path / "head"
    base.mkdir()
    head.mkdir()
    (base / "a3-prod.json").write_text(json.dumps(a3_file))
    errors = {"oke-prod": "plan failed in this tree:\nerror: stack 'oke-prod': 1 problem"}
    gone, failed = diff.diff_dirs(base, head, errors, RULES)
    assert gone.stack == "a3-prod" and {c.action for c in gone.changes} == {"delete"}
    assert len(gone.changes) == len(a3_file["resources"])
    report = diff.render_stack(failed, RULES)
    assert report.startswith("## Stack `oke-prod`: no diff") and "1 problem" in report


# --- Moves through aliases, and components ---

CLUSTER = "urn:pulumi:s::p::gpu-fabric:gke:GpuCluster::c"


def _resource(
    qualified_type: str,
    name: str,
    *,
    parent: str = CLUSTER,
    custom: bool = True,
    inputs: dict | None = None,
    provider: str = "",
    property_dependencies: dict[str, list[str]] | None = None,
    aliases: list[str] | None = None,
) -> dict:
    """A resource as a plan file has it: URN `urn:pulumi:s::p::<qualified_type>::<name>`."""
    return Registration(
        urn=f"urn:pulumi:s::p::{qualified_type}::{name}",
        type=qualified_type.rsplit("$", 1)[-1],
        name=name,
        parent=parent,
        custom=custom,
        provider=f"{provider}::id" if provider else "",  # a reference: `<urn>::<id>`
        dependencies=[],
        property_dependencies=property_dependencies or {},
        inputs=inputs or {},
        protect=False,
        delete_before_replace=False,
        ignore_changes=[],
        aliases=aliases or [],
    ).as_json()


def _plan(*resources: dict) -> dict:
    cluster = _resource("gpu-fabric:gke:GpuCluster", "c", parent="", custom=False)
    return {"stack": "s", "resources": [cluster, *resources], "outputs": {}}


NETWORK = "gcp:compute/network:Network"
SUBNET = "gcp:compute/subnetwork:Subnetwork"
OLD_NET = f"urn:pulumi:s::p::gpu-fabric:gke:GpuCluster${NETWORK}::net"
OLD_SUB = f"urn:pulumi:s::p::gpu-fabric:gke:GpuCluster${SUBNET}::sub"
LAYER = "urn:pulumi:s::p::gpu-fabric:gke:GpuCluster$gpu-fabric:index:GkeCloud::c"
NEW_NET = f"urn:pulumi:s::p::gpu-fabric:index:GkeCloud${NETWORK}::net"


def _before(mtu: int = 8244) -> dict:
    """A GPU VPC and its subnet, children of GpuCluster."""
    return _plan(
        _resource(f"gpu-fabric:gke:GpuCluster${NETWORK}", "net", inputs={"mtu": mtu}),
        _resource(
            f"gpu-fabric:gke:GpuCluster${SUBNET}",
            "sub",
            inputs={"network": "net-id", "ipCidrRange": "10.1.0.0/24"},
            property_dependencies={"network": [OLD_NET]},
        ),
    )


def _after(mtu: int = 8244, aliases: bool = True) -> dict:
    """The same two under the cloud layer (a new component), with aliases to their old URNs."""
    return _plan(
        _resource("gpu-fabric:gke:GpuCluster$gpu-fabric:index:GkeCloud", "c", custom=False),
        _resource(
            f"gpu-fabric:index:GkeCloud${NETWORK}",
            "net",
            parent=LAYER,
            inputs={"mtu": mtu},
            aliases=[OLD_NET] if aliases else [],
        ),
        _resource(
            f"gpu-fabric:index:GkeCloud${SUBNET}",
            "sub",
            parent=LAYER,
            inputs={"network": "net-id", "ipCidrRange": "10.1.0.0/24"},
            property_dependencies={"network": [NEW_NET]},
            aliases=[OLD_SUB] if aliases else [],
        ),
    )


def test_a_resource_moved_with_an_alias_is_not_removed_and_added():
    result = diff.diff_plans(_before(), _after(), RULES)
    assert [(c.name, c.action, c.custom) for c in result.changes] == [
        ("c", "create", False),
        ("net", "move", True),
        ("sub", "move", True),
    ]
    assert change_of(result, "net").moved_from == OLD_NET
    report = diff.render_stack(result, RULES)
    assert report.startswith("## Stack `s`: 0 to replace, 0 to update, 0 to add, 0 to remove\n")
    assert (
        "2 resources moved under a new parent (aliases carry their state; nothing is replaced): "
        "under `c` (`gpu-fabric:index:GkeCloud`): `net`, `sub`." in report
    )
    assert "CAUTION" not in report and "### Add" not in report and "### Remove" not in report


def test_a_moved_resource_with_a_replace_forcing_change_is_still_replaced():
    # google_compute_network's description is ForceNew (its mtu no longer is: google-beta 8.0).
    before, after = _before(), _after()
    before["resources"][1]["inputs"]["description"] = "GPU VPC 1"
    after["resources"][2]["inputs"]["description"] = "GPU VPC one"
    result = diff.diff_plans(before, after, RULES)
    network = change_of(result, "net")
    assert (network.action, network.reason, network.moved_from) == (
        "replace",
        "forced by `description`",
        OLD_NET,
    )
    assert [(f.path, f.before, f.after) for f in network.fields] == [
        ("description", "GPU VPC 1", "GPU VPC one")
    ]
    # The subnet follows through its new URN's dependency on the network's new URN.
    subnet = change_of(result, "sub")
    assert (subnet.action, subnet.reason) == ("replace", "`network` comes from net (replaced)")
    report = diff.render_stack(result, RULES)
    assert report.startswith("## Stack `s`: 2 to replace, 0 to update, 0 to add, 0 to remove\n")
    assert "> [!CAUTION]" in report
    assert "`net` (also replaced), `sub` (also replaced)" in report
    assert "nothing is replaced" not in report


def test_a_component_added_or_removed_is_not_counted_as_a_resource():
    pool = _resource("gpu-fabric:gke:GpuCluster$gpu-fabric:gke:GpuNodePool", "pool", custom=False)
    node_pool = _resource(
        "gpu-fabric:gke:GpuNodePool$gcp:container/nodePool:NodePool",
        "pool",
        parent="urn:pulumi:s::p::gpu-fabric:gke:GpuCluster$gpu-fabric:gke:GpuNodePool::pool",
    )
    added = diff.diff_plans(_plan(), _plan(pool, node_pool), RULES)
    assert sorted((c.name, c.custom) for c in added.of_action("create")) == [
        ("pool", False),
        ("pool", True),
    ]
    report = diff.render_stack(added, RULES)
    assert report.startswith("## Stack `s`: 0 to replace, 0 to update, 1 to add, 0 to remove\n")
    assert (
        "1 component added (groupings only: nothing is created in a cloud or cluster): "
        "`pool` (`gpu-fabric:gke:GpuNodePool`)." in report
    )
    assert "### Add\n\n- `pool` (`gcp:container/nodePool:NodePool`)\n" in report
    assert "- `pool` (`gpu-fabric:gke:GpuNodePool`)" not in report

    removed = diff.render_stack(diff.diff_plans(_plan(pool), _plan(), RULES), RULES)
    assert removed.startswith("## Stack `s`: 0 to replace, 0 to update, 0 to add, 0 to remove\n")
    assert (
        "1 component removed (groupings only: nothing is deleted in a cloud or cluster)" in removed
    )
    assert "### Remove" not in removed


def test_a_removed_resource_with_retain_on_delete_is_forgotten_not_deleted():
    # Pulumi docs, resource option `retainOnDelete`: the resource leaving the program is dropped
    # from the state and left where it is.
    kept = {**_resource("kubernetes:apps/v1:DaemonSet", "kept"), "retainOnDelete": True}
    gone = _resource("kubernetes:apps/v1:DaemonSet", "gone")
    result = diff.diff_plans(_plan(kept, gone), _plan(), RULES)
    assert [c.name for c in result.forgotten()] == ["kept"]
    assert [c.name for c in result.counted("delete")] == ["gone"]
    report = diff.render_stack(result, RULES)
    assert report.startswith(
        "## Stack `s`: 0 to replace, 0 to update, 0 to add, 1 to remove, 1 to forget (kept, no "
        "longer managed)\n"
    )
    assert "### Remove\n\n- `gone` (`kubernetes:apps/v1:DaemonSet`)\n" in report
    assert (
        "- `kept` (`kubernetes:apps/v1:DaemonSet`): kept in the cluster, no longer managed"
        in report
    )
    # Added again later, it is simply an addition (Pulumi reads retainOnDelete from the state).
    back = diff.diff_plans(_plan(), _plan(kept), RULES)
    assert [c.retained for c in back.changes] == [False]


def test_a_plan_file_without_aliases():
    """Plan files written before aliases were recorded have no "aliases" key."""
    old = _before()
    for resource in old["resources"]:
        del resource["aliases"]
    moved = diff.diff_plans(old, _after(), RULES)
    assert {c.name: c.action for c in moved.changes} == {
        "net": "move",
        "sub": "move",
        "c": "create",
    }
    # With neither side saying where a resource came from, a new URN is a new resource.
    new = _after(aliases=False)
    for resource in new["resources"]:
        del resource["aliases"]
    unmatched = diff.diff_plans(old, new, RULES)
    assert sorted((c.urn, c.action) for c in unmatched.of_action("delete")) == [
        (OLD_NET, "delete"),
        (OLD_SUB, "delete"),
    ]
    assert "2 to add, 2 to remove" in diff.render_stack(unmatched, RULES)


def test_a_moved_provider_does_not_replace_what_it_manages():
    old_provider = "urn:pulumi:s::p::gpu-fabric:gke:GpuCluster$pulumi:providers:kubernetes::k8s"
    fabric = "urn:pulumi:s::p::gpu-fabric:gke:GpuCluster$gpu-fabric:index:GkeFabric::c"
    new_provider = "urn:pulumi:s::p::gpu-fabric:index:GkeFabric$pulumi:providers:kubernetes::k8s"
    config_map = "gpu-fabric:gke:GpuCluster$kubernetes:core/v1:ConfigMap"
    map_inputs = {"metadata": {"name": "m", "namespace": "kube-system"}}

    def provider(qualified_type: str, cluster: str, **options) -> dict:
        return _resource(qualified_type, "k8s", inputs={"clusterIdentifier": cluster}, **options)

    def plan(provider_type: str, provider_urn: str, cluster: str = "a", **options) -> dict:
        return _plan(
            provider(provider_type, cluster, **options),
            _resource(config_map, "m", inputs=map_inputs, provider=provider_urn),
        )

    old = plan("gpu-fabric:gke:GpuCluster$pulumi:providers:kubernetes", old_provider)
    moved_type = "gpu-fabric:index:GkeFabric$pulumi:providers:kubernetes"
    new = plan(moved_type, new_provider, parent=fabric, aliases=[old_provider])
    result = diff.diff_plans(old, new, RULES)
    assert [(c.name, c.action) for c in result.changes] == [("k8s", "move")]

    # A moved provider that is replaced still takes what it manages with it.
    replaced = diff.diff_plans(
        old, plan(moved_type, new_provider, "b", parent=fabric, aliases=[old_provider]), RULES
    )
    assert (change_of(replaced, "m").action, change_of(replaced, "m").reason) == (
        "replace",
        "its provider k8s is replaced",
    )
    # A new provider in place of the old one (no alias) is another provider.
    other = diff.diff_plans(old, plan(moved_type, new_provider, parent=fabric), RULES)
    assert {c.name: c.action for c in other.changes if c.custom} == {
        "k8s": "create",
        "m": "replace",
    }
    assert change_of(other, "m").reason == (
        f"its provider changes from `{old_provider}` to `{new_provider}`"
    )


def test_a_resource_renamed_through_an_alias_is_reported_as_renamed():
    old = _plan(_resource(f"gpu-fabric:gke:GpuCluster${NETWORK}", "net", inputs={"mtu": 8244}))
    new = _plan(
        _resource(
            f"gpu-fabric:gke:GpuCluster${NETWORK}",
            "net-1",
            inputs={"mtu": 8244},
            aliases=[OLD_NET],
        )
    )
    result = diff.diff_plans(old, new, RULES)
    assert [(c.name, c.action) for c in result.changes] == [("net-1", "move")]
    report = diff.render_stack(result, RULES)
    assert "1 resource moved or renamed" in report
    assert f"renamed or retyped: `net` (`{NETWORK}`) as `net-1` (`{NETWORK}`)." in report


def test_a_split_carries_the_in_cluster_resources_to_the_fabric_stack(tmp_path, monkeypatch):
    """oke-dranet as one stack before; its cloud stack and fabric stack after."""
    from offline import engine
    from tests.conftest import OKE_EXISTING_VCN, encode, pair_values, split_values, with_changes

    base, head = tmp_path / "base", tmp_path / "head"
    base.mkdir()
    head.mkdir()
    one = with_changes(
        pair_values("oke-dranet"),
        {
            "gpu-fabric:layers": "all",
            "gpu-fabric:network": {"existing": {**OKE_EXISTING_VCN, "deployPath": "a VPN"}},
        },
    )
    with monkeypatch.context() as before_the_split:
        # Before the split no fabric stack read it (with one, both layers here are refused).
        from gpu_fabric.stack_config import references

        before_the_split.setattr(references, "fabric_stacks_reading", lambda *args: [])
        (base / "oke-dranet.json").write_text(
            json.dumps(as_file(engine.run("oke-dranet", encode(one))))
        )
    # Split, the cloud stack needs no deploy path (refused there: it has no effect).
    split = {
        **one,
        "gpu-fabric:layers": "cloud",
        "gpu-fabric:network": {"existing": OKE_EXISTING_VCN},
    }
    cloud_values, fabric_values = split_values("oke-dranet", split)
    cloud = engine.run("oke-dranet", encode(cloud_values))
    fabric = engine.run("oke-dranet-fabric", encode(fabric_values), None, cloud.outputs)
    assert fabric.cloud_stack == "oke-dranet"
    (head / "oke-dranet.json").write_text(json.dumps(as_file(cloud)))
    (head / "oke-dranet-fabric.json").write_text(
        json.dumps({**as_file(fabric), "cloudStack": fabric.cloud_stack})
    )
    cloud_diff, fabric_diff = diff.diff_dirs(base, head, {}, RULES)
    assert cloud_diff.counted("delete") == [] and cloud_diff.counted("replace") == []
    moved = cloud_diff.moved_to["oke-dranet-fabric"]
    assert "oke-dranet-dra-dranet" in moved and "oke-dranet-claims-pair-check" in moved
    # The fabric stack adds only what reads the cloud stack: its own Kubernetes provider.
    assert [c.type for c in fabric_diff.counted("create")] == ["pulumi:providers:kubernetes"]
    assert fabric_diff.counted("replace") == []
    assert fabric_diff.carried_from == {"oke-dranet": moved}
    assert "moved to stack `oke-dranet-fabric`" in diff.render_stack(cloud_diff, RULES)
    assert "carried from stack `oke-dranet`" in diff.render_stack(fabric_diff, RULES)


def test_a_change_under_ignore_changes_is_no_change():
    """OKE's GPU instances ignore their metadata: a new cloud-init reaches new nodes only."""
    old = _resource("oci:Core/instance:Instance", "gpu-0", inputs={"metadata": {"user_data": "a"}})
    new = {**old, "inputs": {"metadata": {"user_data": "b"}}, "ignoreChanges": ["metadata"]}
    result = diff.diff_plans({"resources": [old]}, {"resources": [new]}, RULES)
    assert result.changes == []
    shown = {**new, "ignoreChanges": []}
    (change,) = diff.diff_plans({"resources": [old]}, {"resources": [shown]}, RULES).changes
    assert change.fields[0].path == "metadata.user_data"


def test_a_new_lingjun_group_replaces_the_pool_old_one_first():
    """The provider ignores `efloNodeGroup` after create (not ForceNew); the pool's own
    `replaceOnChanges` makes the change a replacement, and `make diff` reads it from the plan."""
    base = as_file(run_stack(stack="ack-lingjun"))
    result = diff_with(base, {"gpu-fabric:lingjun.groupId": "ng-ec3c96ff0aa2"}, stack="ack-lingjun")
    (pool,) = [c for c in result.changes if c.type == "alicloud:cs/nodePool:NodePool"]
    assert pool.action == "replace" and pool.delete_first
    assert pool.reason == "forced by `efloNodeGroup`"
    assert "efloNodeGroup" not in RULES.fields("alicloud:cs/nodePool:NodePool")


def test_planning_a_tree_says_which_stack_it_plans(tmp_path, monkeypatch, capsys):
    """A log that is not a terminal shows progress while every stack of two trees is planned."""
    tree = tmp_path / "tree"
    stacks = tree / STACKS_DIR.relative_to(diff.ROOT)
    stacks.mkdir(parents=True)
    for name in ("b", "a"):
        (stacks / f"Pulumi.{name}.yaml").write_text("config: {}\n")
    ran = []

    def planned(command, **kwargs):
        ran.append(command[3])
        return subprocess.CompletedProcess(command, 2 if ran[-1] == "b" else 0, "", "bad")

    monkeypatch.setattr(diff.subprocess, "run", planned)
    errors = diff.plan_tree(tree, tmp_path / "out", "at abc123")
    assert ran == ["a", "b"] and errors == {"b": "bad"}
    err = capsys.readouterr().err.splitlines()
    assert err == ["==> planning a (at abc123, 1/2)", "==> planning b (at abc123, 2/2)"]


def test_a_chart_going_back_a_version_is_called_out(a3_file):
    """Trainer 2.3.0 templates its CRDs and 2.2.1 ships them in `crds/`: going back, Helm deletes
    them (and every TrainJob) and does not reinstall them. A reviewer sees that in the report."""
    back = diff_with(a3_file, {"gpu-fabric:queues": {"trainerVersion": "2.2.0"}})
    report = diff.render_stack(back, RULES)
    assert "> [!WARNING]" in report
    assert "goes back from chart 2.2.1 to 2.2.0" in report
    forward = diff_with(a3_file, {"gpu-fabric:queues": {"kueueVersion": "0.19.3"}})
    assert "[!WARNING]" not in diff.render_stack(forward, RULES)


STORAGE_OF = {
    "gke": [
        {
            "data": {"gcs": {"bucket": "acme-data", "create": True}},
            "checkpoints": {"lustre": {"create": {"capacityGib": 18000, "throughputPerTib": 500}}},
        },
        {"checkpoints": {"filestore": {"create": {"tier": "ZONAL", "capacityGb": 2048}}}},
    ],
    "oke": [
        {
            "data": {"fss": {"create": True}},
            "checkpoints": {"lustre": {"create": {"capacityGb": 31200, "throughputPerTb": 125}}},
        }
    ],
    "ack": [{"data": {"cpfs": {"fileSystem": "bmcpfs-0a1b2c3d"}}}],
}


@pytest.mark.parametrize(
    ("package", "storage"),
    [(package, storage) for package, kinds in STORAGE_OF.items() for storage in kinds],
)
def test_every_resource_type_the_training_volumes_create_is_covered(package, storage):
    from tests.stacks import cluster_key_stacks_on

    stack = cluster_key_stacks_on(package)[0]
    plan = run_stack({"gpu-fabric:storage": storage}, stack=stack)
    assert _uncovered({r.type for r in plan.resources}) == []
