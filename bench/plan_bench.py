"""`make bench`: how long `pulumi up` should take, and how fast the offline plan is, per stack.

    python -m bench.plan_bench [--stacks a3-prod ...] [--repeat 3] [--growth 1,2,4,8,16]

For every stack file it prints
- the critical path of `pulumi up`: the chain of waits (offline.graph.waits_for: dependencies,
  property dependencies, provider, a wait on a component being a wait on all inside it) that takes
  longest with the typical create times in bench/create_times.yaml, which is the estimated wall
  time with enough parallelism; and the lower bound set by networks, cluster and node pools alone
  (the same path search, every other resource counted as instant);
- the offline plan's time against the bare import of the SDK modules the plan itself loads, each
  in a fresh interpreter, best of --repeat (goal: at most 1.2x);
- how plan time grows from 1 to 16 GPU node pools (GKE: `gpuPools`, one node each) or GPU nodes
  (OKE: one instance each); ACK's one Lingjun pool has no count to raise, and the bench says so.

Estimates, not measurements of a deploy: no cloud is reachable from here.

The other speed goal, a warm `make test` under TEST_GOAL_SECONDS on 2 cores, is a whole suite
run, too long for a benchmark to repeat: the bench prints how to measure it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from offline.engine import ROOT, STACKS_DIR, Plan, Registration, run, stack_config
from offline.graph import waits_for
from offline.plan import pick

CREATE_TIMES_FILE = Path(__file__).with_name("create_times.yaml")
GOAL_RATIO = 1.2
TEST_GOAL_SECONDS = 30

# In a fresh interpreter: the plan, timed from before its first import; then the SDK modules it
# loaded. And the bare import of those modules alone.
_PLAN_RUN = """
import json, sys, time
started = time.perf_counter()
from offline.engine import run
run(sys.argv[1])
seconds = time.perf_counter() - started
sdk = sorted(m for m in sys.modules if m.split(".")[0].startswith("pulumi"))
print(json.dumps({"seconds": seconds, "modules": sdk}))
"""
_BARE_IMPORT = """
import importlib, json, sys, time
modules = json.load(sys.stdin)
started = time.perf_counter()
for module in modules:
    importlib.import_module(module)
print(json.dumps({"seconds": time.perf_counter() - started}))
"""
# The floor under the plan's own cost: after the same SDK imports, pydantic (the typed config's
# library) imported and one strict model checked. No plan that validates its config with it can
# be faster than the bare import plus this.
_CONFIG_LIBRARY = """
import importlib, json, sys, time
for module in json.load(sys.stdin):
    importlib.import_module(module)
started = time.perf_counter()
from pydantic import BaseModel, ConfigDict
class Pool(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    name: str
    node_count: int
Pool.model_validate({"name": "gpu", "node_count": 2})
print(json.dumps({"seconds": time.perf_counter() - started}))
"""


@dataclass(frozen=True)
class CreateTimes:
    """bench/create_times.yaml: typical create seconds per resource type."""

    default: float
    types: dict[str, dict[str, Any]]

    @classmethod
    def load(cls, path: Path = CREATE_TIMES_FILE) -> CreateTimes:
        data = yaml.safe_load(path.read_text())
        return cls(default=data["default"]["seconds"], types=data["types"])

    def seconds(self, resource: Registration) -> float:
        if not resource.custom:
            return 0.0  # a component creates nothing itself
        entry = self.types.get(resource.type)
        if entry is None:
            return self.default
        if "gpu" in entry and _has_gpus(resource):
            return entry["gpu"]
        return entry["seconds"]

    def is_core(self, resource: Registration) -> bool:
        """Networks, cluster and node pools: what the lower bound counts."""
        return bool(self.types.get(resource.type, {}).get("core"))


def _has_gpus(resource: Registration) -> bool:
    shape = str(resource.inputs.get("nodeShape", ""))
    return bool(pick(resource.inputs, "nodeConfig.guestAccelerators")) or "GPU" in shape


def critical_path(
    plan: Plan, seconds: Callable[[Registration], float]
) -> tuple[float, list[tuple[Registration, float]]]:
    """The longest chain of waits, and each step's (resource, finish time)."""
    edges = waits_for(plan)
    by_urn = {r.urn: r for r in plan.resources}
    finish: dict[str, float] = {}
    before: dict[str, str | None] = {}

    def done(urn: str) -> float:
        if urn not in finish:
            latest = max(edges[urn], key=done, default=None)
            before[urn] = latest
            finish[urn] = (done(latest) if latest else 0.0) + seconds(by_urn[urn])
        return finish[urn]

    last = max(edges, key=done)
    path = []
    step: str | None = last
    while step:
        path.append((by_urn[step], finish[step]))
        step = before[step]
    return finish[last], path[::-1]


def _clock(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s"


def _short(resource: Registration) -> str:
    parts = resource.type.split(":")
    return f"{parts[0]}:{parts[-1]} {resource.name}"


# Both sides of the comparison read compiled bytecode: pip compiled the SDKs at install, and the
# package's own modules are compiled by the first run (the discarded warm-up) unless the
# environment forbids writing bytecode, as PYTHONDONTWRITEBYTECODE does; a user's checkout writes
# it (Python docs, "sys.dont_write_bytecode"), so the fresh interpreters do too.
_WITH_BYTECODE = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _fresh_python(code: str, *args: str, stdin: str | None = None) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=_WITH_BYTECODE,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


@dataclass(frozen=True)
class PlanSpeed:
    """Best-of-repeat seconds of one stack's offline plan and of what it is compared with."""

    plan: float
    bare_import: float
    config_library: float
    modules: int


def plan_against_import(stack: str, repeat: int) -> PlanSpeed:
    """The plan, the bare import of the SDK modules it loads, and the typed-config library's
    floor. A warm-up plan first (bytecode and file caches), then the runs take turns, so that a
    slow moment of the machine falls on all three."""
    modules = json.dumps(_fresh_python(_PLAN_RUN, stack)["modules"])
    plans, imports, library = [], [], []
    for _ in range(repeat):
        plans.append(_fresh_python(_PLAN_RUN, stack)["seconds"])
        imports.append(_fresh_python(_BARE_IMPORT, stdin=modules)["seconds"])
        library.append(_fresh_python(_CONFIG_LIBRARY, stdin=modules)["seconds"])
    return PlanSpeed(min(plans), min(imports), min(library), len(json.loads(modules)))


def _scaled(values: dict[str, str], count: int) -> tuple[str, dict[str, str]] | None:
    """The stack's config with `count` GPU pools (GKE: gpuPools, one node each at most, so the
    ranges hold them; an autoscaled pool up to one, a queued one from none) or `count` GPU nodes
    (OKE: one instance each), and what was scaled; None where neither exists (ACK: one Lingjun
    pool, bound to capacity arranged outside the stack)."""
    if "gpu-fabric:gpuPool" in values:
        pool = json.loads(values["gpu-fabric:gpuPool"])
        one = {**pool, "nodeCount": min(pool["nodeCount"], 1)}
        if "autoscaling" in pool:
            one["autoscaling"] = {**pool["autoscaling"], "maxNodes": 1}
        pools = [{**one, "name": f"{pool['name'][:36]}-{i}"} for i in range(count)]
        scaled = {k: v for k, v in values.items() if k != "gpu-fabric:gpuPool"}
        return "GPU node pools", {**scaled, "gpu-fabric:gpuPools": json.dumps(pools)}
    if "gpu-fabric:gpuNodes" in values:
        nodes = json.loads(values["gpu-fabric:gpuNodes"])
        return "GPU nodes", {**values, "gpu-fabric:gpuNodes": json.dumps({**nodes, "count": count})}
    return None


def growth(stack: str, counts: list[int], repeat: int) -> tuple[str, list[tuple[int, float, int]]]:
    """What grows, and plan seconds (best of `repeat`, in this process) and resources per count."""
    values = stack_config(stack)
    if _scaled(values, 1) is None:
        return "", []
    run(stack)  # warm: imports and first-run caches are not what grows
    rows = []
    for count in counts:
        scaled = _scaled(values, count)
        assert scaled is not None  # the stack scales (checked above)
        what, config = scaled
        best, size = float("inf"), 0
        for _ in range(repeat):
            started = time.perf_counter()
            size = len(run(stack, config).resources)
            best = min(best, time.perf_counter() - started)
        rows.append((count, best, size))
    return what, rows


def report(stack: str, times: CreateTimes, repeat: int, counts: list[int]) -> list[str]:
    plan = run(stack)
    custom = [r for r in plan.resources if r.custom]
    lines = [f"== {stack}: {len(plan.resources)} resources, {len(custom)} created by providers =="]
    total, path = critical_path(plan, times.seconds)
    serial = sum(times.seconds(r) for r in custom)
    lines.append(
        f"critical path of `pulumi up`: {_clock(total)} estimated wall time "
        f"({len(path)} steps; {_clock(serial)} if every create ran one after another)"
    )
    for resource, finished in path:
        lines.append(
            f"  {_clock(finished - times.seconds(resource)):>7} +{_clock(times.seconds(resource))}"
            f"  {_short(resource)}"
        )
    core_total, core_path = critical_path(
        plan, lambda r: times.seconds(r) if times.is_core(r) else 0.0
    )
    core_steps = " -> ".join(r.name for r, _ in core_path if times.is_core(r))
    lines.append(
        f"lower bound from networks, cluster and node pools alone: {_clock(core_total)} "
        f"({core_steps})"
    )
    speed = plan_against_import(stack, repeat)
    ratio = speed.plan / speed.bare_import
    verdict = "met" if ratio <= GOAL_RATIO else "NOT met"
    lines.append(
        f"offline plan: {speed.plan:.2f} s vs bare import of the {speed.modules} SDK modules it "
        f"uses: {speed.bare_import:.2f} s -> {ratio:.2f}x (goal <= {GOAL_RATIO}x: {verdict}; best "
        f"of {repeat}, fresh interpreters)"
    )
    floor = (speed.bare_import + speed.config_library) / speed.bare_import
    lines.append(
        f"  floor: pydantic's import and one strict model take {speed.config_library:.2f} s "
        f"after the same imports, so no plan that types its config with it is under {floor:.2f}x; "
        f"the rest ({speed.plan - speed.bare_import - speed.config_library:.2f} s) is the "
        "package's modules, its config checks and the SDK registering each resource"
    )
    if counts:
        what, rows = growth(stack, counts, repeat)
        if not rows:
            lines.append(
                "plan time growth: not measured: the stack has one GPU pool, bound to Lingjun "
                "capacity arranged outside the stack, and no count of pools or nodes to raise"
            )
        else:
            lines.append(f"plan time growth with the number of {what}:")
            for count, seconds, size in rows:
                lines.append(f"  {count:>3} {what}: {seconds * 1000:7.1f} ms, {size} resources")
            per_resource = [s / n for _, s, n in rows]
            lines.append(
                f"  {counts[-1]} vs {counts[0]}: {rows[-1][1] / rows[0][1]:.2f}x the time for "
                f"{rows[-1][2] / rows[0][2]:.2f}x the resources ({per_resource[-1] * 1e3:.2f} vs "
                f"{per_resource[0] * 1e3:.2f} ms per resource: linear if these stay close)"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stacks", nargs="*", help="stacks to measure (default: every stack file)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing, best kept")
    parser.add_argument(
        "--growth", default="1,2,4,8,16", help="pool or node counts to plan ('' to skip)"
    )
    args = parser.parse_args(argv)
    stacks = args.stacks or sorted(
        p.name[len("Pulumi.") : -len(".yaml")] for p in STACKS_DIR.glob("Pulumi.*.yaml")
    )
    counts = [int(c) for c in args.growth.split(",") if c.strip()]
    times = CreateTimes.load()
    print(
        "Estimates from bench/create_times.yaml and the offline plan's waits, not a deploy. "
        "Timings on this machine."
    )
    for stack in stacks:
        print("\n".join(report(stack, times, args.repeat, counts)))
    print(
        f"warm `make test` (goal under {TEST_GOAL_SECONDS} s on 2 cores): not run here, it is the "
        "whole suite; run `make test` twice and read the second run's time (`time make test`: "
        "wall, and user CPU, which other load on the machine changes less)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
