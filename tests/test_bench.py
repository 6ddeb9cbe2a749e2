"""`make bench` prints its figures: the report's logic, on one stack, with the timings stubbed.

The measurements themselves (fresh interpreters, repeated plans) are the benchmark: `make bench`
runs them; here only what is computed from a plan is checked, so the suite stays fast.
"""

from __future__ import annotations

import re

import pytest

from bench import plan_bench
from tests.stacks import STACKS


def test_bench_prints_the_critical_path_the_plan_ratio_and_the_growth(capsys, monkeypatch):
    # The plan-against-import ratio is measured in fresh interpreters: a benchmark, not a test.
    speed = plan_bench.PlanSpeed(plan=0.9, bare_import=0.6, config_library=0.06, modules=120)
    monkeypatch.setattr(plan_bench, "plan_against_import", lambda stack, repeat: speed)
    assert plan_bench.main(["--stacks", "a3-prod", "--repeat", "1", "--growth", "1,4"]) == 0
    out = capsys.readouterr().out
    # GKE: primary network -> subnet -> cluster (12 min) -> GPU pool (15 min) -> the wait for
    # usable GPU nodes, from the data file.
    assert "critical path of `pulumi up`: 28m20s estimated wall time (5 steps;" in out
    assert "12m50s +15m00s  gcp:NodePool a3-prod-a3-highgpu" in out
    assert "27m50s +0m30s  command:Command a3-prod-gpu-nodes-usable-wait" in out
    assert re.search(r"lower bound from networks, cluster and node pools alone: 27m50s \(", out)
    ratio = re.search(
        r"offline plan: [\d.]+ s vs bare import of the \d+ SDK modules .*-> ([\d.]+)x", out
    )
    assert ratio and float(ratio.group(1)) > 0
    assert "-> 1.50x (goal <=" in out
    # The floor the typed-config library sets, and what is left for the package and the SDK.
    assert "take 0.06 s after the same imports, so no plan that types its config" in out
    assert "under 1.10x; the rest (0.24 s)" in out
    assert "plan time growth with the number of GPU node pools:" in out
    # 4 one-node pools: 3 more pool components, node pools, placement policies and Kueue flavors
    # than one pool (3 each), and nothing else: the pools share the VPCs, Network objects,
    # installer and training queue.
    assert re.search(r"  1 GPU node pools: +[\d.]+ ms, 78 resources", out)
    assert re.search(r"  4 GPU node pools: +[\d.]+ ms, 90 resources", out)
    # The suite's own time is not a benchmark run: the bench says how to measure it.
    assert "warm `make test` (goal under 30 s on 2 cores): not run here" in out


def test_the_gpu_pool_takes_the_gpu_figure_and_components_take_none(a3_plan):
    times = plan_bench.CreateTimes.load()
    pools = {r.name: times.seconds(r) for r in a3_plan.of_type("gcp:container/nodePool:NodePool")}
    assert pools == {"a3-prod-system": 300, "a3-prod-a3-highgpu": 900}
    assert {times.seconds(r) for r in a3_plan.resources if not r.custom} == {0.0}


@pytest.mark.parametrize("stack", STACKS)
def test_the_growth_plans_a_valid_config_of_every_stack(stack):
    """Each scaled config is one the stack config accepts: an autoscaled pool scaled to at most
    one node, a queued one from none (a refused config would stop `make bench`)."""
    from gpu_fabric.stack_config import parse_pulumi_config
    from offline import engine as offline_engine

    scaled = plan_bench._scaled(offline_engine.stack_config(stack), 4)
    if scaled is not None:
        parse_pulumi_config(scaled[1], stack, stacks_dir=None)
