"""`python -m verify STACK` (what `make verify STACK=...` runs): check a deployed GPU fabric.

Reads the cluster with the official `kubernetes` client. The kubeconfig comes from `--kubeconfig`,
else from the stack's `kubeconfig` output (`pulumi stack output`, when the Pulumi CLI is on PATH;
a fabric stack's cloud stack, `gpu-fabric:cloudStack`, holds it),
else from the current context (KUBECONFIG or ~/.kube/config). Exits 0 when the fabric is healthy,
1 with a list of what is missing or wrong, 2 when the stack config or the cluster cannot be read.

With `--bandwidth` (`make verify BANDWIDTH=1`) it runs the fabric's NCCL test instead, judges it and
cleans up (`verify/bandwidth.py`, which says what runs and its exit codes); the results go to
`build/verify/STACK/`.
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from gpu_fabric.config_base import Layers
from gpu_fabric.problems import ConfigError
from gpu_fabric.registry import spec_of
from gpu_fabric.stack_config import parse_with_cloud_stack_file
from gpu_fabric.stack_file import stack_config
from gpu_fabric.workloads.settings import training_namespaces
from verify.health import health_problems, health_report, read_health_snapshot
from verify.platforms import checks_of
from verify.queue import queue_problems, queue_report, read_queue_snapshot
from verify.storage import read_storage_snapshot, storage_problems
from verify.storage_throughput import (
    CouldNotTest,
    judged,
    storage_benchmark_for,
    volume_notes,
)


def _stack_kubeconfig(stack: str) -> str | None:
    if shutil.which("pulumi") is None:
        return None
    result = subprocess.run(
        ["pulumi", "stack", "output", "kubeconfig", "--show-secrets", "-s", stack],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout if result.returncode == 0 and result.stdout.strip() else None


class KubeconfigError(Exception):
    """No usable kubeconfig: says where it looked."""


def _default_kubeconfig() -> str:
    return os.environ.get("KUBECONFIG") or str(Path("~/.kube/config").expanduser())


def api_client_for(stack: str, kubeconfig: str | None) -> tuple[Any, str]:
    """A `kubernetes` ApiClient, and where its configuration came from."""
    from kubernetes import config

    def load(path: str, what: str) -> Any:
        if not Path(path).is_file():
            raise KubeconfigError(f"no kubeconfig file at {path} ({what})")
        try:
            return config.new_client_from_config(config_file=path)
        except config.ConfigException as err:
            raise KubeconfigError(f"{path} ({what}) is not a usable kubeconfig: {err}") from None

    if kubeconfig:
        return load(kubeconfig, "KUBECONFIG_FILE / --kubeconfig"), kubeconfig
    text = _stack_kubeconfig(stack)
    if text:
        return (
            config.new_client_from_config_dict(yaml.safe_load(text)),
            f"stack output kubeconfig of {stack}",
        )
    tried = (
        f"`pulumi stack output kubeconfig -s {stack}` gave none"
        if shutil.which("pulumi")
        else "the Pulumi CLI is not on PATH, so the stack's kubeconfig output was not read"
    )
    path = _default_kubeconfig()
    try:
        return load(path, f"the current kubectl context; {tried}"), f"kubeconfig {path}"
    except KubeconfigError as err:
        raise KubeconfigError(f"{err}; {tried}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stack", help="stack name, e.g. a4x-prod")
    parser.add_argument("--kubeconfig", help="kubeconfig file (default: see above)")
    parser.add_argument(
        "--bandwidth",
        action="store_true",
        help="run the fabric's NCCL test on the cluster, judge it, clean up (verify/bandwidth.py)",
    )
    parser.add_argument(
        "--storage",
        action="store_true",
        help="write and read the training volumes from a job on a GPU node, report the "
        "throughput, clean up (verify/storage_throughput.py)",
    )
    parser.add_argument("--nodes", type=int, default=2, help="GPU nodes of the test (default 2)")
    parser.add_argument(
        "--upstream-pods",
        action="store_true",
        help="run upstream's NCCL test pods instead of a TrainJob through the training queue",
    )
    parser.add_argument(
        "--timeout", type=float, default=1800, help="seconds the test may take (default 1800)"
    )
    parser.add_argument(
        "--out", type=Path, help="where the results go (default build/verify/STACK)"
    )
    args = parser.parse_args(argv)
    try:
        cfg = parse_with_cloud_stack_file(stack_config(args.stack), args.stack)
    except (ConfigError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    checks = checks_of(spec_of(cfg.platform))
    benchmark = None
    if args.bandwidth:
        from verify.bandwidth import CouldNotRun, benchmark_for

        try:
            benchmark = benchmark_for(args.stack, cfg, args.nodes, args.upstream_pods)
        except (CouldNotRun, ValueError) as err:
            print(f"error: cannot run the bandwidth test: {err}", file=sys.stderr)
            return 2
    if args.storage:
        try:
            benchmark = storage_benchmark_for(args.stack, cfg)
        except CouldNotTest as err:
            print(f"error: cannot test the training volumes: {err}", file=sys.stderr)
            return 2
    expected = checks.expected_from(cfg)
    cloud = cfg.cloud_stack or args.stack  # a fabric stack's cluster is its cloud stack's
    try:
        api_client, source = api_client_for(cloud, args.kubeconfig)
    except KubeconfigError as err:
        print(f"error: {err}", file=sys.stderr)
        print(f"  write one with: {checks.kubeconfig_command(cfg, args.stack)}", file=sys.stderr)
        print(
            f"  or: pulumi stack output kubeconfig --show-secrets -s {cloud} > kubeconfig.yaml"
            f" && make verify STACK={args.stack} KUBECONFIG_FILE=kubeconfig.yaml",
            file=sys.stderr,
        )
        return 2
    except Exception as err:  # noqa: BLE001 (any failure to reach the cluster is reported, not raised)
        print(f"error: cannot read the cluster: {err}", file=sys.stderr)
        return 2
    if benchmark is not None and args.storage:
        return _storage(benchmark, cfg, api_client, source, args)
    if benchmark is not None:
        return _bandwidth(benchmark, api_client, source, args)
    # The training queue is the fabric layer's (verify/queue.py): a cloud stack has none.
    queue = (
        None
        if cfg.layers is Layers.CLOUD
        else spec_of(cfg.platform).training_queue_module().training_queue_of(cfg)
    )
    # Node health is the fabric layer's too (verify/health.py).
    health = (
        None if cfg.layers is Layers.CLOUD else spec_of(cfg.platform).health_module().health_of(cfg)
    )
    try:
        snapshot = checks.read_snapshot(expected, api_client)
        queue_snapshot = read_queue_snapshot(queue, api_client) if queue else None
        health_snapshot = read_health_snapshot(health, api_client) if health else None
        storage_snapshot = (
            read_storage_snapshot(cfg.storage, training_namespaces(queue), api_client)
            if queue
            else None
        )
    except Exception as err:  # noqa: BLE001 (likewise)
        print(f"error: cannot read the cluster ({source}): {err}", file=sys.stderr)
        return 2

    problems = checks.check(expected, snapshot)
    if queue and queue_snapshot:
        problems += queue_problems(queue, queue_snapshot)
    report = queue_report(queue, queue_snapshot) if queue and queue_snapshot else []
    if queue and storage_snapshot:
        problems += storage_problems(cfg.storage, training_namespaces(queue), storage_snapshot)
    if health and health_snapshot:
        now = datetime.datetime.now(datetime.UTC)
        problems += health_problems(health, health_snapshot, now)
        report += health_report(health, health_snapshot)
    if problems:
        print(f"FAIL {args.stack} ({source}): {len(problems)} problem(s)")
        for problem in problems:
            print(f"  - {problem}")
        for line in report:
            print(f"  {line}")
        return 1
    summary = expected.summary
    if queue:
        summary += f"; the training queue {queue['namespace']}/{queue['local_queue']} admits"
    print(f"OK {args.stack} ({source}): {summary}")
    for line in report:
        print(f"  {line}")
    return 0


def _bandwidth(benchmark: Any, api_client: Any, source: str, args: argparse.Namespace) -> int:
    """`--bandwidth`: run, judge, clean up, and keep the results under build/verify/STACK."""
    from verify.bandwidth import KubeCluster, run_benchmark, write_results

    print(f"cluster: {source}")
    report = run_benchmark(benchmark, KubeCluster(api_client), timeout=args.timeout)
    out = args.out or Path("build") / "verify" / args.stack
    written = write_results(report, out)
    verdict = "NOT RUN" if report.error else {0: "OK", 1: "FAIL", 2: "NOT JUDGED"}[report.code]
    if report.error:
        print(f"error: the bandwidth test could not run: {report.error}", file=sys.stderr)
    for line in report.cleanup:
        print(f"error: not deleted: {line}", file=sys.stderr)
    outcomes = ", ".join(f"{r.run.name} {r.outcome}" for r in report.results) or "no run"
    print(f"{verdict} {args.stack} bandwidth: {outcomes}")
    print("results: " + ", ".join(str(p) for p in written))
    return report.code


def _storage(benchmark: Any, cfg: Any, api_client: Any, source: str, args: Any) -> int:
    """`--storage`: run the volumes' job, report each figure, clean up."""
    from verify.bandwidth import KubeCluster, run_benchmark

    print(f"cluster: {source}")
    report = run_benchmark(benchmark, KubeCluster(api_client), timeout=args.timeout)
    for line in report.cleanup:
        print(f"error: not deleted: {line}", file=sys.stderr)
    if report.error or not report.results:
        print(f"error: the storage test could not run: {report.error}", file=sys.stderr)
        return 2
    passed, lines = judged(report.results[0].log, volume_notes(cfg))
    print(f"{'OK' if passed else 'FAIL'} {args.stack} storage:")
    for line in lines:
        print(f"  {line}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
