"""`python -m verify STACK --bandwidth [--nodes N]` (what `make verify STACK=... BANDWIDTH=1` runs):
run the fabric's NCCL test on the deployed cluster, judge it, clean up.

Each platform's benchmarks are built by pure functions (the manifests are what the tests
validate), one per fabric, in its platform's benchmark module (`verify/platforms.py`:
`verify/gke_bandwidth.py` and its neighbours); this module runs them.

Everything is created in a namespace of its own (the benchmark's `namespace`) and deleted at the
end, also when the run fails or is interrupted.

Exit codes: 0 every run judged and at or above its threshold; 1 a run below it, with wrong
results, or failed (its test exited non-zero or printed no table); 2 the benchmark could not run
(the cluster refused an object, a pod could not start, the timeout passed) or has no threshold.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from gpu_fabric.registry import spec_of
from gpu_fabric.workload_security import secure_workload, waivers

from .benchmark import (
    Benchmark,
    CouldNotRun,
    Run,
)
from .nccl import LogError, Table, Verdict, describe, describe_verdict, judge, parse_log
from .nccl_judge import Hardware, catalog_floor, hardware_of, run_shape, write_plot
from .platforms import benchmarks_of
from .trainjob_bandwidth import trainjob_benchmark

DEFAULT_TIMEOUT = 1800.0
POLL_SECONDS = 5.0
STUCK_REASONS = {
    "ErrImagePull",
    "ImagePullBackOff",
    "InvalidImageName",
    "ErrImageNeverPull",
    "CreateContainerConfigError",
    "CreateContainerError",
}
"""Container states that do not resolve by waiting: the run stops there (exit 2)."""
_ROW = re.compile(r"^\s*\d+\s+\d+\s+[a-z0-9_]+\s")


MISSING_CRD_HINTS = {
    "MPIJob": " (is the Kubeflow MPI Operator installed? its CRD mpijobs.kubeflow.org)",
    "TrainJob": " (is Kubeflow Trainer installed? its CRD trainjobs.trainer.kubeflow.org)",
}
"""What a 404 on creating a custom resource means."""


def benchmark_for(stack: str, cfg: Any, nodes: int = 2, upstream_pods: bool = False) -> Benchmark:
    """The benchmark of the stack's fabric on `nodes` GPU nodes (CouldNotRun when there is none):
    a user's TrainJob on the fabric's runtime through the training queue
    (`verify/trainjob_bandwidth.py`) where the stack has one, else (or with `upstream_pods`)
    upstream's NCCL test pods, from the platform's benchmark module (its spec's `benchmark`,
    one builder per fabric)."""
    if nodes < 1:
        raise CouldNotRun("--nodes must be a positive whole number")
    hardware = hardware_of(stack, cfg)
    spec = spec_of(cfg.platform)
    queue = None if upstream_pods else spec.training_queue_module().training_queue_of(cfg)
    if queue is not None and "runtime" in queue:
        if nodes < 2:
            raise CouldNotRun("the test runs across nodes: give --nodes 2 or more")
        return _secured(trainjob_benchmark(stack, hardware, queue, nodes))
    benchmarks = benchmarks_of(spec)
    builder = benchmarks.BUILDERS.get(hardware.fabric)
    if builder is None:
        raise CouldNotRun(f"no bandwidth test for fabric {hardware.fabric!r}")
    if nodes < benchmarks.MIN_NODES:
        raise CouldNotRun(
            f"the NCCL tests run across nodes: give --nodes {benchmarks.MIN_NODES} or more"
        )
    return _secured(builder(stack, hardware, cfg, nodes))


BENCHMARK_SIZES = {"tcpxo-daemon": "daemon", "mpi-launcher": "small"}
NCCL_TEST_CONTAINERS = ["nccl-test", "test", "tcpxo-daemon"]
"""Containers of upstream's test pods that keep the runtime's default capabilities (sshd, the
TCPXO daemon; gpu_fabric/workload_security.DEFAULT_CAPABILITIES)."""


def _secure(obj: dict) -> dict:
    """An object of upstream's test files with the secure defaults and its waivers; one this
    package rendered (already waived) or without pods as it is."""
    if waivers(obj) or obj["kind"] in ("Namespace", "Service"):
        return obj
    return secure_workload(obj, BENCHMARK_SIZES, NCCL_TEST_CONTAINERS)


def _secured(benchmark: Benchmark) -> Benchmark:
    """The benchmark with every object it creates secured (`_secure`), launched ones too."""
    for phase in benchmark.phases:
        phase.objects = [_secure(o) for o in phase.objects]
        if phase.launch is not None:
            phase.launch = _secured_launch(phase.launch)
    return benchmark


def _secured_launch(launch: Callable[[list[str]], list[dict]]) -> Callable[[list[str]], list[dict]]:
    def secured(nodes: list[str]) -> list[dict]:
        return [_secure(o) for o in launch(nodes)]

    return secured


# --- the cluster ---------------------------------------------------------------------------------


class Cluster(Protocol):
    """What the run loop asks of the cluster (`KubeCluster`: the `kubernetes` client)."""

    def create(self, obj: dict) -> None: ...
    def delete(self, obj: dict) -> None: ...
    def pods(self, namespace: str, selector: str) -> list[dict]: ...
    def log(self, namespace: str, pod: str, container: str) -> str: ...
    def node_labels(self, name: str) -> dict[str, str]: ...


_CUSTOM = {"MPIJob": "mpijobs", "TrainJob": "trainjobs"}


class KubeCluster:
    """`Cluster` over a `kubernetes` ApiClient."""

    def __init__(self, api_client: Any):
        from kubernetes import client

        self.api_client = api_client
        self.core = client.CoreV1Api(api_client)
        self.batch = client.BatchV1Api(api_client)
        self.custom = client.CustomObjectsApi(api_client)

    def create(self, obj: dict) -> None:
        kind, ns = obj["kind"], obj["metadata"].get("namespace")
        body: Any = _quantities_as_text(obj)  # the client checks a dict against its models
        if kind == "Namespace":
            self.core.create_namespace(body)
        elif kind in ("Pod", "Service", "ConfigMap"):
            getattr(self.core, f"create_namespaced_{_snake(kind)}")(ns, body)
        elif kind == "Job":
            self.batch.create_namespaced_job(ns, body)
        else:
            group, version = obj["apiVersion"].split("/")
            self.custom.create_namespaced_custom_object(group, version, ns, _CUSTOM[kind], body)

    def delete(self, obj: dict) -> None:
        from kubernetes.client.exceptions import ApiException

        kind, name, ns = obj["kind"], obj["metadata"]["name"], obj["metadata"].get("namespace")
        try:
            if kind == "Namespace":
                self.core.delete_namespace(name)
            elif kind in ("Pod", "Service", "ConfigMap"):
                getattr(self.core, f"delete_namespaced_{_snake(kind)}")(name, ns)
            elif kind == "Job":
                self.batch.delete_namespaced_job(name, ns, propagation_policy="Background")
            else:
                group, version = obj["apiVersion"].split("/")
                self.custom.delete_namespaced_custom_object(group, version, ns, _CUSTOM[kind], name)
        except ApiException as err:
            if err.status != 404:
                raise

    def pods(self, namespace: str, selector: str) -> list[dict]:
        listed = self.core.list_namespaced_pod(namespace, label_selector=selector)
        return self.api_client.sanitize_for_serialization(listed).get("items") or []

    def log(self, namespace: str, pod: str, container: str) -> str:
        return str(self.core.read_namespaced_pod_log(pod, namespace, container=container))

    def node_labels(self, name: str) -> dict[str, str]:
        node = self.api_client.sanitize_for_serialization(self.core.read_node(name))
        return dict((node.get("metadata") or {}).get("labels") or {})


def _quantities_as_text(obj: Any) -> Any:
    """A copy whose resource quantities are strings (`nvidia.com/gpu: "8"`): the client's models
    type a quantity as a string and refuse a number before sending it."""
    if isinstance(obj, list):
        return [_quantities_as_text(item) for item in obj]
    if not isinstance(obj, dict):
        return obj
    return {
        key: {k: str(v) if isinstance(v, int | float) else v for k, v in value.items()}
        if key in ("limits", "requests") and isinstance(value, dict)
        else _quantities_as_text(value)
        for key, value in obj.items()
    }


def _snake(kind: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", kind).lower()


# --- running -------------------------------------------------------------------------------------


def pod_state(pod: dict) -> str:
    """A pod's state in one line: phase, and why it waits or how its containers ended."""
    status = pod.get("status") or {}
    parts = [status.get("phase") or "Unknown"]
    for condition in status.get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("status") == "False":
            parts.append(f"unschedulable: {condition.get('message') or condition.get('reason')}")
    for container in status.get("containerStatuses") or []:
        state = container.get("state") or {}
        if "waiting" in state and (state["waiting"] or {}).get("reason"):
            parts.append(f"{container['name']} {state['waiting']['reason']}")
        if "terminated" in state and state["terminated"]:
            ended = state["terminated"]
            parts.append(
                f"{container['name']} exited {ended.get('exitCode')}"
                + (f" ({ended['reason']})" if ended.get("reason") else "")
            )
    return ", ".join(parts)


def _stuck(pod: dict) -> str | None:
    status = pod.get("status") or {}
    for container in [*(status.get("initContainerStatuses") or []),
                      *(status.get("containerStatuses") or [])]:  # fmt: skip
        waiting = (container.get("state") or {}).get("waiting") or {}
        if waiting.get("reason") in STUCK_REASONS:
            return (
                f"pod {pod['metadata']['name']}: container {container['name']} "
                f"{waiting['reason']}: {waiting.get('message') or 'no message'}"
            )
    return None


def _exit_code(pod: dict, container: str) -> int | None:
    """The container's exit code once it ended (also when the pod's sidecars still run)."""
    status = pod.get("status") or {}
    for c in status.get("containerStatuses") or []:
        ended = (c.get("state") or {}).get("terminated")
        if c.get("name") == container and ended:
            return int(ended.get("exitCode", 1))
    phase = status.get("phase")
    return {"Succeeded": 0, "Failed": 1}.get(phase or "")


@dataclass
class RunResult:
    run: Run
    log: str = ""
    exit_code: int | None = None
    tables: list[Table] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    """What the judge says."""
    outcome: str = "not run"
    """passed, failed (1), not judged (2), could not run (2)."""
    nodes: list[str] = field(default_factory=list)
    """The nodes its pods ran on."""

    @property
    def code(self) -> int:
        return {"passed": 0, "failed": 1}.get(self.outcome, 2)


class Watcher:
    """Polls the cluster and prints one line per pod state change and per result row."""

    def __init__(self, cluster: Cluster, say: Callable[[str], None]):
        self.cluster, self.say = cluster, say
        self.states: dict[str, str] = {}
        self.rows: dict[str, int] = {}

    def pods(self, namespace: str, selector: str) -> list[dict]:
        pods = self.cluster.pods(namespace, selector)
        for pod in pods:
            name, state = pod["metadata"]["name"], pod_state(pod)
            if self.states.get(name) != state:
                self.states[name] = state
                self.say(f"  pod {name}: {state}")
        return pods

    def rows_of(self, run: Run, pod: str, text: str) -> None:
        lines = [line for line in text.splitlines() if _ROW.match(line)]
        for line in lines[self.rows.get(run.name, 0) :]:
            self.say(f"  {run.name}: {' '.join(line.split())}")
        self.rows[run.name] = max(self.rows.get(run.name, 0), len(lines))


def _wait_running(
    watcher: Watcher, namespace: str, selector: str, count: int, deadline: float, clock, sleep
) -> list[str]:
    """The nodes of `count` Running pods (sorted by pod name); CouldNotRun on timeout."""
    while True:
        pods = watcher.pods(namespace, selector)
        for pod in pods:
            if reason := _stuck(pod):
                raise CouldNotRun(reason)
        running = sorted(
            (p for p in pods if (p.get("status") or {}).get("phase") == "Running"),
            key=lambda p: p["metadata"]["name"],
        )
        if len(running) >= count:
            return [p["spec"].get("nodeName") or "" for p in running[:count]]
        if clock() >= deadline:
            raise CouldNotRun(
                f"{len(running)} of {count} pods ({selector}) Running when the timeout passed; "
                + _states_text(watcher)
            )
        sleep(POLL_SECONDS)


def _states_text(watcher: Watcher) -> str:
    return "last states: " + (
        "; ".join(f"{n}: {s}" for n, s in sorted(watcher.states.items())) or "no pod was created"
    )


def _wait_done(
    watcher: Watcher, cluster: Cluster, results: list[RunResult], deadline: float, clock, sleep
) -> None:
    """Until every run's launcher container ended; each result's log and exit code."""
    while True:
        pending = [r for r in results if r.exit_code is None]
        for result in pending:
            run = result.run
            ran_on = {p["spec"].get("nodeName") for p in watcher.pods(run.namespace, run.pods)}
            result.nodes = sorted(set(result.nodes) | {n for n in ran_on if n})
            for pod in watcher.pods(run.namespace, run.launcher):
                if reason := _stuck(pod):
                    raise CouldNotRun(reason)
                code = _exit_code(pod, run.container)
                name = pod["metadata"]["name"]
                started = (pod.get("status") or {}).get("phase") in (
                    "Running",
                    "Succeeded",
                    "Failed",
                )
                if started:
                    result.log = cluster.log(run.namespace, name, run.container)
                    watcher.rows_of(run, name, result.log)
                if code is not None:
                    result.exit_code = code
                    break
        if all(r.exit_code is not None for r in results):
            return
        if clock() >= deadline:
            names = ", ".join(r.run.name for r in results if r.exit_code is None)
            raise CouldNotRun(
                f"{names} did not finish within the timeout; " + _states_text(watcher)
            )
        sleep(POLL_SECONDS)


def judge_result(result: RunResult, hardware: Hardware, allow_unchecked: bool = False) -> None:
    """The verdict of a finished run, from its log and the catalog's thresholds."""

    run = result.run
    if run.collective is None:
        result.outcome = "not judged"
        result.lines.append(
            f"{run.name}: exited {result.exit_code}; not judged (its output is not nccl-tests and "
            "the catalog has no threshold for it): read its log"
        )
        return
    try:
        result.tables = parse_log(result.log, f"the log of {run.name}")
    except LogError as err:
        result.outcome = "failed"
        result.lines.append(f"{run.name}: exited {result.exit_code}; {err}")
        return
    for table in result.tables:
        if table.collective is None:
            table.collective, table.collective_source = run.collective, "the benchmark run"
        result.lines += describe(table)
        try:
            shape = run_shape(table, hardware, run.nodes, run.gpus_per_node)
        except LogError as err:
            result.outcome = "failed"
            result.lines.append(f"  {err}")
            return
        threshold, wanted = catalog_floor(table, hardware, shape)
        if threshold is None:
            result.lines.append(f"  not judged: {wanted}")
            continue
        result.lines.append(f"  judged as {wanted}")
        try:
            verdict = judge(table, threshold, allow_unchecked)
        except LogError as err:
            result.outcome = "failed"
            result.lines.append(f"  {err}")
            return
        result.verdicts.append(verdict)
        result.lines += describe_verdict(verdict)
    if result.exit_code:
        result.outcome = "failed"
        result.lines.append(f"  {run.name}: the test exited {result.exit_code}")
    elif not result.verdicts:
        result.outcome = "not judged"
    else:
        result.outcome = "passed" if all(v.passed for v in result.verdicts) else "failed"


@dataclass
class Report:
    benchmark: Benchmark
    results: list[RunResult]
    error: str | None = None
    """Why the benchmark could not run."""
    cleanup: list[str] = field(default_factory=list)
    """What could not be deleted."""

    @property
    def code(self) -> int:
        if self.error:
            return 2
        codes = [r.code for r in self.results]
        if 1 in codes:
            return 1
        return 2 if not codes or 2 in codes else 0


def run_benchmark(
    benchmark: Benchmark,
    cluster: Cluster,
    timeout: float = DEFAULT_TIMEOUT,
    say: Callable[[str], None] = print,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    allow_unchecked: bool = False,
) -> Report:
    """Create, wait, collect, judge, and delete everything created (also on failure)."""
    watcher = Watcher(cluster, say)
    report = Report(benchmark, [])
    created: list[dict] = []

    def create(objects: list[dict]) -> None:
        for obj in objects:
            say(f"  create {obj['kind']} {obj['metadata']['name']}")
            try:
                cluster.create(obj)
            except Exception as err:  # noqa: BLE001 (any refusal is the reason it could not run)
                missing = getattr(err, "status", None) == 404
                hint = MISSING_CRD_HINTS.get(obj["kind"], "") if missing else ""
                raise CouldNotRun(
                    f"the cluster refused {obj['kind']} {obj['metadata']['name']}: "
                    f"{_api_reason(err)}{hint}"
                ) from None
            created.append(obj)

    def delete(objects: list[dict]) -> None:
        for obj in reversed(objects):
            try:
                cluster.delete(obj)
            except Exception as err:  # noqa: BLE001 (report it, carry on deleting)
                report.cleanup.append(
                    f"{obj['kind']} {obj['metadata']['name']}: {_api_reason(err)}"
                )
            else:
                say(f"  deleted {obj['kind']} {obj['metadata']['name']}")
            if obj in created:
                created.remove(obj)

    deadline = clock() + timeout
    say(f"bandwidth {benchmark.stack}: {benchmark.what}")
    try:
        create(benchmark.setup)
        for phase in benchmark.phases:
            results = [RunResult(run) for run in phase.runs]
            report.results += results
            before = len(created)
            try:
                create(phase.objects)
                if phase.launch and phase.wait_running:
                    peers = phase.runs[0].nodes - 1
                    nodes = _wait_running(
                        watcher,
                        benchmark.namespace,
                        phase.wait_running,
                        peers,
                        deadline,
                        clock,
                        sleep,
                    )
                    create(phase.launch(nodes))
                _wait_done(watcher, cluster, results, deadline, clock, sleep)
            finally:
                delete(created[before:])
            for result in results:
                judge_result(result, benchmark.hardware, allow_unchecked)
                if benchmark.placement_levels is not None:
                    labels = {n: cluster.node_labels(n) for n in result.nodes}
                    result.lines += placement_lines(benchmark.placement_levels, labels)
                for line in result.lines:
                    say(line)
    except CouldNotRun as err:
        report.error = str(err)
    except Exception as err:  # noqa: BLE001 (a cluster that cannot be read: reported, cleaned up)
        report.error = f"cannot read the cluster: {_api_reason(err)}"
    finally:
        delete(list(created))
    if report.error:
        for result in report.results:
            if result.outcome == "not run":
                result.outcome = "could not run"
    return report


def placement_lines(levels: list[str], node_labels: dict[str, dict[str, str]]) -> list[str]:
    """Where a queued job's pods ran: per Topology level (widest first), the domains their nodes
    span (Kueue's Topology Aware Scheduling placed them)."""
    if not node_labels:
        return []
    lines = [f"placement: {len(node_labels)} node(s): {', '.join(sorted(node_labels))}"]
    for level in levels:
        values = {labels.get(level, "(unlabelled)") for labels in node_labels.values()}
        together = "one domain" if len(values) == 1 else f"{len(values)} domains (spread)"
        lines.append(f"  {level}: {together}: {', '.join(sorted(values))}")
    return lines


def _api_reason(err: Exception) -> str:
    reason = getattr(err, "reason", None)
    body = getattr(err, "body", None)
    if body:
        try:
            message = json.loads(body).get("message")
        except (ValueError, AttributeError):
            message = None
        if message:
            return f"{reason}: {message}" if reason else str(message)
    return str(reason or err)


# --- what a person keeps -------------------------------------------------------------------------


def write_results(report: Report, directory: Path) -> list[Path]:
    """The logs, `summary.json`, `summary.md` and (when a table was read) `busbw.png`."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for result in report.results:
        if result.log:
            path = directory / f"{result.run.name}.log"
            path.write_text(result.log, encoding="utf-8")
            written.append(path)
    tables = [t for r in report.results for t in r.tables]
    verdicts = [v for r in report.results for v in r.verdicts]
    if tables:
        plot = directory / "busbw.png"
        write_plot(plot, tables, verdicts)
        written.append(plot)
    summary = directory / "summary.json"
    summary.write_text(json.dumps(summary_data(report), indent=2) + "\n", encoding="utf-8")
    markdown = directory / "summary.md"
    markdown.write_text(summary_markdown(report), encoding="utf-8")
    return [*written, summary, markdown]


def summary_data(report: Report) -> dict:
    b = report.benchmark
    return {
        "stack": b.stack,
        "fabric": b.hardware.fabric,
        "machine": b.hardware.machine,
        "benchmark": b.what,
        "exit_code": report.code,
        "error": report.error,
        "cleanup_failures": report.cleanup,
        "runs": [
            {
                "name": r.run.name,
                "collective": r.run.collective,
                "nodes": r.run.nodes,
                "gpus_per_node": r.run.gpus_per_node,
                "outcome": r.outcome,
                "exit_code": r.exit_code,
                "verdicts": [
                    {
                        "passed": v.passed,
                        "size": v.threshold.size,
                        "min_busbw": v.threshold.min_busbw,
                        "threshold": v.threshold.source,
                        "busbw": [
                            {"out_of_place": row.out_of_place.busbw, "in_place": row.in_place.busbw}
                            for row in v.judged
                        ],
                        "failures": v.failures,
                    }
                    for v in r.verdicts
                ],
                "lines": r.lines,
            }
            for r in report.results
        ],
    }


def summary_markdown(report: Report) -> str:
    b = report.benchmark
    verdict = "NOT RUN" if report.error else {0: "PASS", 1: "FAIL", 2: "NOT JUDGED"}[report.code]
    lines = [
        f"### Bandwidth: {b.stack} — {verdict}",
        "",
        f"{b.what}.",
        "",
        "| run | outcome | busbw at the judged size (out-of-place / in-place) | minimum |",
        "| --- | --- | --- | --- |",
    ]
    for r in report.results:
        measured = "; ".join(
            f"{row.out_of_place.busbw:.2f} / {row.in_place.busbw:.2f} GB/s"
            for v in r.verdicts
            for row in v.judged
        )
        minimum = "; ".join(f"{v.threshold.min_busbw:.2f} GB/s" for v in r.verdicts)
        lines.append(f"| {r.run.name} | {r.outcome} | {measured or '-'} | {minimum or '-'} |")
    if report.error:
        lines += ["", f"Could not run: {report.error}"]
    if report.cleanup:
        lines += ["", "Not deleted: " + "; ".join(report.cleanup)]
    details = [line for r in report.results for line in r.lines]
    if details:
        lines += ["", "```", *details, "```"]
    return "\n".join(lines) + "\n"
