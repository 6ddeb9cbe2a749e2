"""`python -m offline.scan [STACK ...]` (what `make scan` runs): checkov over every Kubernetes
object each stack renders, with a count per stack. Exit 0 when no check fails unwaived, 1 when one
does (each is listed), 2 when checkov cannot run.

What is scanned, per stack file (build/scan/<stack>/, one YAML file per object):
- the objects of its offline plan as committed;
- the plan's objects with every optional workload its file has a key for switched on (the TCPX
  smoke test, the training runtime, the OKE NCCL jobs, the ACK benchmark Job), so an object a
  user can turn on is scanned before anyone does;
- on a stack that applies in-cluster objects, the manifests `make verify BANDWIDTH=1` creates
  (`verify.bandwidth`, on 2 nodes).
checkov does not look inside custom resources, so each pod template of an MPIJob or a training
runtime is also written as a Pod of its own, with its parent's waivers.

Waivers are the objects' own `checkov.io/skipN` annotations (gpu_fabric/workload_security.py);
checkov counts them as skipped. Nothing is waived on the command line.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gpu_fabric.stack_config import parse_with_cloud_stack_file
from gpu_fabric.workload_security import pod_templates, waivers, without_waivers
from offline import engine
from offline.engine import ROOT, manifest
from verify.bandwidth import benchmark_for

OUT_DIR = ROOT / "build" / "scan"
CHECKOV = ROOT / ".venv-scan" / "bin" / "checkov"
PLACEHOLDER_DIGEST = "@sha256:" + "0" * 64
OPTIONAL_WORKLOADS: dict[str, Any] = {
    "gpu-fabric:smokeTest": True,
    "gpu-fabric:trainingRuntime": True,
    # Two jobs that can run together (a list of every claim would be refused as a deadlock).
    "gpu-fabric:ncclTests": ["aligned-4gpu-8rails-a", "aligned-4gpu-8rails-b"],
    "gpu-fabric:benchmarkJob": True,
}
"""Stack keys that turn on a workload this package writes; set where the stack file has the key."""
BENCHMARK_IMAGE = f"registry.example/benchmark:1{PLACEHOLDER_DIGEST}"
"""ACK's benchmark image has no default (the user names it): a placeholder pinned by digest."""
POD_TEMPLATE_HOLDERS = {"MPIJob", "ClusterTrainingRuntime"}
HOLDER = "gpu-fabric/scanned-for"
"""On a Pod made from a custom resource's template: the file of that custom resource."""


def with_optional_workloads(values: dict[str, str]) -> dict[str, str]:
    """The stack's config values with every optional workload it has a key for switched on."""
    out = dict(values)
    for key, on in OPTIONAL_WORKLOADS.items():
        if key in values:
            out[key] = json.dumps(on)
    if "gpu-fabric:benchmarkJob" in values:
        images = json.loads(values.get("gpu-fabric:images", "{}"))
        out["gpu-fabric:images"] = json.dumps({**images, "benchmark": BENCHMARK_IMAGE})
    return out


def as_pods(obj: dict) -> list[dict]:
    """The pod templates of a custom resource checkov cannot read, as Pods with its waivers.

    A cluster-scoped holder (the training runtime) has no namespace: its pods run in the
    namespace of the TrainJob that uses it, which the scan names `trainjob-namespace`."""
    metadata = obj["metadata"]
    pods = []
    for where, template in pod_templates(obj.get("spec", {})):
        role = where.split(".")[-2] if where.count(".") else where
        pods.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    **(template.get("metadata") or {}),
                    "name": f"{metadata['name']}-{role}".lower(),
                    "namespace": metadata.get("namespace", "trainjob-namespace"),
                    "annotations": {
                        **((template.get("metadata") or {}).get("annotations") or {}),
                        **(metadata.get("annotations") or {}),
                    },
                },
                "spec": template["spec"],
            }
        )
    return pods


def stack_objects(stack: str) -> dict[str, dict]:
    """Every object to scan for `stack`, by file name."""
    values = engine.stack_config(stack)
    objects: dict[str, dict] = {}

    def add(obj: dict, origin: str) -> None:
        name = f"{origin}-{obj['kind']}-{obj['metadata'].get('name')}".lower()
        objects.setdefault(f"{name}.yaml", obj)
        if obj["kind"] in POD_TEMPLATE_HOLDERS:
            for pod in as_pods(obj):
                pod["metadata"]["annotations"][HOLDER] = f"{name}.yaml"
                add(pod, f"{origin}-{obj['kind']}")

    for origin, config in (("plan", None), ("optional", with_optional_workloads(values))):
        plan = engine.run(stack, config)
        for registration in plan.kubernetes_objects():
            obj = manifest(registration)
            if obj.get("kind") and not _is_listed_already(objects, obj):
                add(obj, origin)
    if values.get("gpu-fabric:layers", "all") != "cloud":
        cfg = parse_with_cloud_stack_file(with_optional_workloads(values), stack)
        # Both runs `make verify BANDWIDTH=1` can make: the queued TrainJob, upstream's pods.
        for upstream_pods in (False, True):
            for obj in benchmark_for(stack, cfg, upstream_pods=upstream_pods).manifests():
                if not _is_listed_already(objects, obj):
                    add(obj, "bandwidth")
    return objects


def _is_listed_already(objects: dict[str, dict], obj: dict) -> bool:
    return any(o == obj for o in objects.values())


def write_objects(stack: str, out_dir: Path = OUT_DIR) -> dict[str, dict]:
    """The stack's objects under `out_dir`/objects/<stack>/, and without their waivers under
    `out_dir`/unwaived/<stack>/."""
    objects = stack_objects(stack)
    for tree, render in (("objects", lambda o: o), ("unwaived", without_waivers)):
        folder = out_dir / tree / stack
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for name, obj in objects.items():
            (folder / name).write_text(yaml.safe_dump(render(obj), sort_keys=False))
    return objects


@dataclass
class StackScan:
    objects: int = 0
    passed: int = 0
    waived: int = 0
    failed: list[dict] = field(default_factory=list)
    unneeded: list[str] = field(default_factory=list)
    """Waivers of checks the object passes without them (`file: CHECK`)."""


def read_results(report: dict | list, folder: Path) -> dict[str, StackScan]:
    """checkov's JSON report of `folder`, per stack (its subfolders)."""
    scans: dict[str, StackScan] = defaultdict(StackScan)
    reports = report if isinstance(report, list) else [report]
    for one in reports:
        results = one.get("results", {})
        for outcome in ("passed_checks", "skipped_checks", "failed_checks"):
            for check in results.get(outcome, []):
                stack = check["file_path"].lstrip("/").partition("/")[0]
                scan = scans[stack]
                if outcome == "passed_checks":
                    scan.passed += 1
                elif outcome == "skipped_checks":
                    scan.waived += 1
                else:
                    scan.failed.append(check)
    for stack_folder in folder.iterdir():
        scans[stack_folder.name].objects = len(list(stack_folder.glob("*.yaml")))
    return dict(scans)


def unneeded_waivers(
    objects: dict[str, dict[str, dict]], bare: dict[str, StackScan]
) -> dict[str, list[str]]:
    """Per stack, the waivers whose check the object passes without them. A custom resource's
    waiver is needed when one of its pods (scanned for it) fails the check."""
    out: dict[str, list[str]] = {}
    for stack, by_file in objects.items():
        failing = set()
        for check in bare.get(stack, StackScan()).failed:
            name = check["file_path"].rsplit("/", 1)[-1]
            holder = by_file[name]["metadata"].get("annotations", {}).get(HOLDER, name)
            failing.add((holder, check["check_id"]))
        out[stack] = [
            f"{name}: {check}"
            for name, obj in by_file.items()
            if HOLDER not in obj["metadata"].get("annotations", {})
            for check in waivers(obj)
            if (name, check) not in failing
        ]
    return out


def run_checkov(checkov: Path, out_dir: Path) -> dict | list:
    """checkov over `out_dir`, offline (`--skip-download`: no policy or guideline download)."""
    done = subprocess.run(
        [str(checkov.absolute()), "-d", str(out_dir), "--framework", "kubernetes"]
        + ["--skip-download", "--compact", "--output", "json"],
        capture_output=True,
        text=True,
        cwd=out_dir,
        env={**os.environ, "BC_SKIP_MAPPING": "TRUE"},
    )
    if done.returncode not in (0, 1) or not done.stdout.strip().startswith(("{", "[")):
        raise RuntimeError(f"checkov exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def report(scans: dict[str, StackScan], stacks: list[str]) -> str:
    lines = [f"{'stack':<22}{'objects':>8}{'passed':>8}{'waived':>8}{'failed':>8}"]
    for stack in stacks:
        scan = scans.get(stack, StackScan())
        lines.append(
            f"{stack:<22}{scan.objects:>8}{scan.passed:>8}{scan.waived:>8}{len(scan.failed):>8}"
        )
    for stack in stacks:
        for check in scans.get(stack, StackScan()).failed:
            lines.append(
                f"FAILED {stack}/{check['file_path'].rsplit('/', 1)[-1]}: {check['check_id']} "
                f"{check['check_name']}"
            )
        for waiver in scans.get(stack, StackScan()).unneeded:
            lines.append(f"UNNEEDED WAIVER {stack}/{waiver} (the object passes without it)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stacks", nargs="*", help="stack names (default: every stack file)")
    parser.add_argument("--checkov", type=Path, default=CHECKOV, help="the checkov to run")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="output folder (build/scan)")
    args = parser.parse_args(argv)
    stacks = args.stacks or engine.stack_names()
    shutil.rmtree(args.out, ignore_errors=True)
    objects = {stack: write_objects(stack, args.out) for stack in stacks}
    try:
        scans = read_results(run_checkov(args.checkov, args.out / "objects"), args.out / "objects")
        bare = read_results(run_checkov(args.checkov, args.out / "unwaived"), args.out / "unwaived")
    except (OSError, RuntimeError) as err:
        print(f"error: checkov could not run ({args.checkov}): {err}", file=sys.stderr)
        return 2
    for stack, unneeded in unneeded_waivers(objects, bare).items():
        scans.setdefault(stack, StackScan()).unneeded = unneeded
    print(report(scans, stacks))
    failed = sum(len(s.failed) + len(s.unneeded) for s in scans.values())
    print(f"checkov: {failed} unwaived finding(s) or unneeded waiver(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
