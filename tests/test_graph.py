"""`make graph`: the stack's dependency graph as Mermaid, DOT and (with Graphviz) SVG."""

from __future__ import annotations

import shutil

import pytest

from offline import graph
from offline.engine import Plan


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
    written = graph.write(a3_plan, tmp_path)
    mmd = (tmp_path / "a3-prod.mmd").read_text()
    assert mmd.splitlines()[1] == "flowchart LR"
    assert "subgraph n" in mmd and '["a3-prod-a3-highgpu<br/><small>gcp:NodePool</small>"]' in mmd
    arrows = [line for line in mmd.splitlines() if line.startswith("  n") and " --> " in line]
    assert len(arrows) == sum(len(d) for d in graph.reduced(graph.waits_for(a3_plan)).values())
    assert "digraph" in (tmp_path / "a3-prod.dot").read_text()
    if shutil.which("dot"):
        assert (tmp_path / "a3-prod.svg").read_text().lstrip().startswith("<?xml")
        assert len(written) == 3
    monkeypatch.setattr(graph.shutil, "which", lambda name: None)
    monkeypatch.setattr(graph, "run", lambda stack: a3_plan)
    assert graph.main(["a3-prod", "--out", str(tmp_path / "no-dot")]) == 0
    assert "no SVG: Graphviz's `dot` is not on PATH" in capsys.readouterr().out
    assert not (tmp_path / "no-dot" / "a3-prod.svg").exists()
