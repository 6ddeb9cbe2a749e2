"""`make bench` runs and prints its figures (one stack, one repetition, to stay fast)."""

from __future__ import annotations

import re

from bench import plan_bench


def test_bench_prints_the_critical_path_the_plan_ratio_and_the_growth(capsys):
    assert plan_bench.main(["--stacks", "a3-prod", "--repeat", "1", "--growth", "1,16"]) == 0
    out = capsys.readouterr().out
    # GKE: primary network -> subnet -> cluster (12 min) -> GPU pool (15 min), from the data file.
    assert "critical path of `pulumi up`: 27m50s estimated wall time (4 steps;" in out
    assert "12m50s +15m00s  gcp:NodePool a3-prod-a3-highgpu" in out
    assert re.search(r"lower bound from networks, cluster and node pools alone: 27m50s \(", out)
    ratio = re.search(
        r"offline plan: [\d.]+ s vs bare import of the \d+ SDK modules .*-> ([\d.]+)x", out
    )
    assert ratio and float(ratio.group(1)) > 0
    assert "plan time growth with the number of GPU node pools:" in out
    # 16 one-node pools: 15 more pool components, node pools and placement policies than one pool
    # (3 each), and nothing else: the pools share the VPCs, Network objects and installer.
    assert re.search(r"  1 GPU node pools: +[\d.]+ ms, 46 resources", out)
    assert re.search(r" 16 GPU node pools: +[\d.]+ ms, 91 resources", out)


def test_the_gpu_pool_takes_the_gpu_figure_and_components_take_none(a3_plan):
    times = plan_bench.CreateTimes.load()
    pools = {r.name: times.seconds(r) for r in a3_plan.of_type("gcp:container/nodePool:NodePool")}
    assert pools == {"a3-prod-system": 300, "a3-prod-a3-highgpu": 900}
    assert {times.seconds(r) for r in a3_plan.resources if not r.custom} == {0.0}
