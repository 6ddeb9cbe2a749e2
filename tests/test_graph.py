"""`make graph`: the stack's dependency graph as Mermaid, DOT and (with Graphviz) SVG and PNG."""

from __future__ import annotations

import re
import shutil

import pytest

from offline import graph
from offline.engine import Plan
from tests.conftest import run_stack


@pytest.fixture(scope="module")
def edges(a3_plan) -> dict[str, set[str]]:
    return graph.waits_for(a3_plan)


def names(plan: Plan, urns: set[str]) -> set[str]:
    return {plan.by_urn(u).name for u in urns}


def test_the_gpu_pool_waits_for_cluster_subnets_and_grant_not_for_network_objects(a3_plan, edges):
    (pool,) = [r for r in a3_plan.of_type("gcp:container/nodePool:NodePool") if "gpu" in r.name]
    waits = names(a3_plan, edges[pool.urn])
    assert {"a3-prod", "a3-prod-a3-highgpu-placement"} <= waits
    assert {f"a3-prod-net-{n}-sub-0" for n in range(1, 5)} <= waits
    assert "a3-prod-nodes-container.defaultNodeServiceAccount" in waits
    assert not any("networks-" in name for name in waits)


def test_kubernetes_objects_wait_for_their_provider_and_components_are_not_nodes(a3_plan, edges):
    (daemonset,) = a3_plan.of_type("kubernetes:apps/v1:DaemonSet")
    assert names(a3_plan, edges[daemonset.urn]) == {"a3-prod-k8s"}
    components = {r.urn for r in a3_plan.resources if not r.custom}
    assert components.isdisjoint(edges) and all(components.isdisjoint(d) for d in edges.values())


def test_reduction_drops_only_implied_waits():
    edges = {"a": set(), "b": {"a"}, "c": {"a", "b"}, "d": {"a"}}
    assert graph.reduced(edges) == {"a": set(), "b": {"a"}, "c": {"b"}, "d": {"a"}}


def test_the_picture_files(a3_plan, tmp_path, monkeypatch, capsys):
    written = graph.write(a3_plan, tmp_path, level="resources")
    mmd = (tmp_path / "a3-prod.resources.mmd").read_text()
    assert mmd.splitlines()[1] == "flowchart LR"
    assert "subgraph n" in mmd and '["a3-prod-a3-highgpu<br/><small>gcp:NodePool</small>"]' in mmd
    arrows = [line for line in mmd.splitlines() if line.startswith("  n") and " --> " in line]
    assert len(arrows) == sum(len(d) for d in graph.reduced(graph.waits_for(a3_plan)).values())
    assert "digraph" in (tmp_path / "a3-prod.resources.dot").read_text()
    if shutil.which("dot"):
        assert (tmp_path / "a3-prod.resources.svg").read_text().lstrip().startswith("<?xml")
        assert (tmp_path / "a3-prod.resources.png").read_bytes().startswith(b"\x89PNG")
        assert len(written) == 4
    monkeypatch.setattr(graph.shutil, "which", lambda name: None)
    monkeypatch.setattr(graph, "run", lambda stack: a3_plan)
    assert graph.main(["a3-prod", "--out", str(tmp_path / "no-dot")]) == 0
    assert "no SVG or PNG: Graphviz's `dot` is not on PATH" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "no-dot").iterdir()) == ["a3-prod.dot", "a3-prod.mmd"]


# --- The component level (the default) ---


@pytest.fixture(scope="module")
def oke_plan() -> Plan:
    """oke-dranet's cloud stack and its fabric stack, as one plan."""
    return run_stack(stack="oke-dranet")


def box(plan: Plan, type_: str, named: str = "") -> str:
    (match,) = [r.urn for r in plan.resources if r.type == type_ and r.name.endswith(named)]
    return match


def test_the_component_graph_draws_one_box_per_component_with_the_waits_between_them(oke_plan):
    mmd = graph.mermaid(oke_plan)
    boxes = re.findall(r"^\s+n\d+\[", mmd, re.MULTILINE)
    # The components in boxes (the training queue and its namespace's claim templates too), and
    # the home region's provider, a resource of the cloud layer itself.
    assert len(boxes) <= 12 < 80 <= len(oke_plan.resources)
    # Each box inside its layer's frame, each layer inside its stack's GpuCluster.
    frames = [line.strip() for line in mmd.splitlines() if line.strip().startswith("subgraph")]
    assert len(frames) == 4
    assert sorted(f.split("[", 1)[1] for f in frames if "layer" in f) == [
        '"oke-dranet<br/><small>OkeCloud layer</small>"]',
        '"oke-dranet<br/><small>OkeFabric layer, stack oke-dranet-fabric</small>"]',
    ]
    assert (
        '["oke-dranet-network<br/><small>oke:Network</small><br/>45 NSG rules<br/>4 NSGs<br/>'
        "4 subnets<br/>" in mmd
    )
    waits = graph.reduced(graph.component_waits(oke_plan))
    cluster = box(oke_plan, "gpu-fabric:oke:Cluster")
    nodes = box(oke_plan, "gpu-fabric:oke:RdmaNodes")
    network = box(oke_plan, "gpu-fabric:oke:Network")
    drivers = box(oke_plan, "gpu-fabric:oke:DraDrivers")
    usable = box(oke_plan, "gpu-fabric:k8s:UsableNodes")
    claims = box(oke_plan, "gpu-fabric:oke:ClaimTemplates", named="-dranet-claims")
    assert cluster in waits[nodes] and network in waits[cluster]
    assert drivers in waits[usable] and usable in waits[claims]
    ids = {r.urn: f"n{i}" for i, r in enumerate(sorted(oke_plan.resources, key=lambda r: r.urn))}
    assert f"  {ids[cluster]} --> {ids[nodes]}" in mmd.splitlines()
    assert f"  {ids[drivers]} -> {ids[usable]};" in graph.dot(oke_plan).splitlines()
    assert f"  {ids[usable]} -> {ids[claims]};" in graph.dot(oke_plan).splitlines()
    arrows = [line for line in mmd.splitlines() if line.startswith("  n") and " --> " in line]
    assert len(arrows) == sum(len(d) for d in waits.values()) < 11


def test_a_component_waits_for_another_if_anything_inside_waits_for_anything_inside(a3_plan):
    box_of = graph.box_of(a3_plan)
    waits = graph.component_waits(a3_plan)
    for urn, deps in graph.waits_for(a3_plan).items():
        assert {box_of[d] for d in deps} - {box_of[urn]} <= waits[box_of[urn]]
    (pool,) = [r for r in a3_plan.resources if r.type == "gpu-fabric:gke:GpuNodePool"]
    gpu_vpcs = {f"a3-prod-net-{n}" for n in range(1, 5)}
    assert {a3_plan.by_urn(u).name for u in waits[pool.urn]} == {"a3-prod", *gpu_vpcs}
    # The frames (GpuCluster, its layers) are no boxes; what the cloud layer's cluster does not
    # wait for, the fabric's objects wait for through it.
    assert {a3_plan.by_urn(b).type.split(":")[1] for b in waits} == {
        "gcp",
        "gke",
        "k8s",  # the wait for usable GPU nodes
        "workloads",
        "health",
    }
    assert len(waits) == 12


@pytest.mark.parametrize(
    ("type_", "count", "words"),
    [
        (
            "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule",
            45,
            "45 NSG rules",
        ),
        ("oci:Core/networkSecurityGroup:NetworkSecurityGroup", 4, "4 NSGs"),
        ("oci:Core/vcn:Vcn", 1, "1 VCN"),
        ("gcp:container/nodePool:NodePool", 2, "2 node pools"),
        ("gcp:compute/resourcePolicy:ResourcePolicy", 2, "2 resource policies"),
        ("gcp:projects/iAMMember:IAMMember", 3, "3 IAM members"),
        ("gcp:compute/routerNat:RouterNat", 1, "1 router NAT"),
        ("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate", 6, "6 ResourceClaimTemplates"),
        ("kubernetes:resource.k8s.io/v1:DeviceClass", 2, "2 DeviceClasses"),
        ("pulumi:providers:kubernetes", 1, "1 Kubernetes provider"),
    ],
)
def test_counts_read_as_words(type_, count, words):
    assert graph.counted(count, type_) == words


def test_the_level_is_an_argument_and_components_are_the_default(a3_plan, tmp_path, monkeypatch):
    monkeypatch.setattr(graph, "run", lambda stack: a3_plan)
    assert graph.main(["a3-prod", "--out", str(tmp_path)]) == 0
    components = (tmp_path / "a3-prod.mmd").read_text()
    assert "a3-prod-networks<br/><small>gke:NetworkObjects</small><br/>" in components
    assert "gcp:NodePool" not in components
    assert not (tmp_path / "a3-prod.resources.mmd").exists()
    assert graph.main(["a3-prod", "--out", str(tmp_path), "--level", "resources"]) == 0
    assert "gcp:NodePool" in (tmp_path / "a3-prod.resources.mmd").read_text()
    with pytest.raises(SystemExit):
        graph.main(["a3-prod", "--level", "everything"])
    if shutil.which("dot"):
        assert (tmp_path / "a3-prod.png").read_bytes().startswith(b"\x89PNG")
