"""`make verify BANDWIDTH=1`: the benchmark manifests of every fabric, and the run loop against a
fake API server behind the real `kubernetes` client (pods go Pending, Running, then the launcher's
test container ends; its log is a fixture)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import kubernetes_validate
import pytest
from kubernetes.client import ApiClient, Configuration
from kubernetes.client.rest import RESTResponse

import verify.__main__ as verify_cli
from gpu_fabric.registry import spec_of
from gpu_fabric.stack_config import parse_with_cloud_stack_file
from gpu_fabric.stack_file import stack_config
from tests.stacks import APPLYING_STACKS, stacks_on
from tests.test_manifests import KUBERNETES_VERSION
from tests.test_manifests import validate as validate_object
from verify import allgather_bench, bandwidth
from verify.bandwidth import (
    KubeCluster,
    benchmark_for,
    run_benchmark,
    summary_markdown,
    write_results,
)
from verify.benchmark import CouldNotRun
from verify.gke_bandwidth import gib_test_image
from verify.nccl import parse_log

NCCL = Path(__file__).with_name("fixtures") / "nccl"
TCPX_LOG = (NCCL / "gke-tcpx-a3-high-all-gather.log").read_text()
OKE_LOG = (NCCL / "oke-dranet-all-reduce.log").read_text()
GKE_STACKS = stacks_on("gke")


def config(stack: str) -> Any:
    cfg = parse_with_cloud_stack_file(stack_config(stack), stack)
    if stack.startswith("ack"):
        images = cfg.images.model_copy(update={"benchmark": "registry.example/hps:1"})
        cfg = cfg.model_copy(update={"images": images})
    return cfg


def half_node_log(busbw: float) -> str:
    """A 2 x 4-GPU all_reduce_perf -b 8G -e 8G table (8 ranks: busbw = algbw x 2 x 7/8)."""
    algbw = busbw / 1.75
    row = (
        f"  8589934592    2147483648     float     sum      -1  {8589934592 / algbw / 1e3:.1f}  "
        f"{algbw:.2f}  {busbw:.2f}       0  {8589934592 / algbw / 1e3:.1f}  {algbw:.2f}  "
        f"{busbw:.2f}       0"
    )
    lines = OKE_LOG.splitlines()
    return "\n".join([*lines[:4], row, *lines[6:]]) + "\n"


def below(log: str) -> str:
    """The TCPX table with its 512 MiB row at 50 GB/s."""
    return log.replace("70.87", "50.87").replace("71.28", "51.28")


# --- manifests ----------------------------------------------------------------------------------


def validate(obj: dict) -> None:
    if obj["kind"] == "MPIJob":  # a CRD: its pod templates are Kubernetes' own
        for role in obj["spec"]["mpiReplicaSpecs"].values():
            template = {
                "apiVersion": "v1",
                "kind": "PodTemplate",
                "metadata": {"name": "t"},
                "template": role["template"],
            }
            kubernetes_validate.validate(template, KUBERNETES_VERSION, strict=True)
        return
    kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize("stack", APPLYING_STACKS)
@pytest.mark.parametrize("nodes", [2, 3])
def test_manifests_are_valid_kubernetes_objects(stack, nodes):
    benchmark = benchmark_for(stack, config(stack), nodes, upstream_pods=True)
    objects = benchmark.manifests()
    assert objects
    for obj in objects:
        validate(obj)


def test_tcpx_pods_are_the_smoke_test_pods_running_the_guides_all_gather():
    benchmark = benchmark_for("a3-prod", config("a3-prod"), upstream_pods=True)
    (phase,) = benchmark.phases
    (launcher,) = phase.launch(["gke-node-b"])
    test = next(c for c in launcher["spec"]["containers"] if c["name"] == "nccl-test")
    assert test["command"][-1] == '/configs/allgather.sh "$NODE_NAME" gke-node-b'
    assert launcher["spec"]["hostNetwork"] is True
    assert [c["name"] for c in launcher["spec"]["containers"]] == ["tcpx-daemon", "nccl-test"]
    # Upstream's all-gather scripts (vendored) are created with the namespace, for /configs.
    (scripts,) = [m for m in benchmark.setup if m["kind"] == "ConfigMap"]
    assert scripts["metadata"]["name"] == "nccl-configmap" and "allgather.sh" in scripts["data"]
    assert scripts["metadata"]["namespace"] == benchmark.namespace
    assert phase.runs[0].collective == "all_gather"


def test_tcpxo_and_gib_launchers_run_upstreams_commands():
    (phase,) = benchmark_for("a3-mega-prod", config("a3-mega-prod"), 3, upstream_pods=True).phases
    (pod,) = phase.launch(["n2", "n3"])
    script = next(c for c in pod["spec"]["containers"] if c["name"] == "nccl-test")["command"][-1]
    assert "NHOSTS=3" in script and "sleep infinity" not in script
    assert script.rstrip().endswith("/scripts/allgather.sh nccl-host-1 nccl-host-2 nccl-host-3")
    peers = [o for o in phase.objects if o["kind"] == "Pod"]
    assert all("sleep infinity" in c["command"][-1] for p in peers for c in p["spec"]["containers"]
               if c["name"] == "nccl-test")  # fmt: skip

    (phase,) = benchmark_for("a4x-prod", config("a4x-prod"), upstream_pods=True).phases
    (pod,) = phase.launch(["n2"])
    (test,) = pod["spec"]["containers"]
    command = "/usr/local/gib/scripts/run_nccl_tests.sh -t all_gather -b 1K -e 8G"
    assert test["args"][0].rstrip().endswith(f"{command} nccl-host-1 nccl-host-2")
    assert test["resources"]["limits"]["nvidia.com/gpu"] == 4
    networks = json.loads(pod["metadata"]["annotations"]["networking.gke.io/interfaces"])
    assert [n["network"] for n in networks] == ["default", "rdma-0", "rdma-1", "rdma-2", "rdma-3"]


def test_gib_test_image_pairs_with_the_installer():
    amd = "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib:v1.1.1"
    arm = "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-arm64:v1.1.0"
    assert gib_test_image(amd).endswith("/nccl-plugin-gib-diagnostic:v1.1.1")
    assert gib_test_image(arm).endswith("/nccl-plugin-gib-diagnostic-arm64:v1.1.0")


def test_oke_runs_the_whole_node_job_then_the_two_sharing_jobs():
    benchmark = benchmark_for("oke-dranet-fabric", config("oke-dranet-fabric"), upstream_pods=True)
    assert [[r.name for r in p.runs] for p in benchmark.phases] == [
        ["bw-aligned-8gpu-16rails"],
        ["bw-aligned-4gpu-8rails-a", "bw-aligned-4gpu-8rails-b"],
    ]
    assert [r.gpus_per_node for p in benchmark.phases for r in p.runs] == [8, 4, 4]
    assert benchmark.namespace == "rdma-dranet"


def test_refusals_say_why():
    with pytest.raises(CouldNotRun, match="--nodes 2 or more"):
        benchmark_for("a3-prod", config("a3-prod"), 1, upstream_pods=True)
    cfg = parse_with_cloud_stack_file(stack_config("ack-lingjun-fabric"), "ack-lingjun-fabric")
    with pytest.raises(CouldNotRun, match="images.benchmark"):
        benchmark_for("ack-lingjun-fabric", cfg, upstream_pods=True)


# --- a fake API server --------------------------------------------------------------------------


class _Response:
    def __init__(self, status: int, body: object):
        self.status = status
        self.reason = {200: "OK", 201: "Created", 404: "Not Found"}.get(status, "Forbidden")
        self.data = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.headers = {
            "content-type": "text/plain" if isinstance(body, str) else "application/json"
        }


def _matches(labels: dict, selector: str) -> bool:
    terms, depth, start = [], 0, 0
    for i, ch in enumerate(selector + ","):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            terms.append(selector[start:i].strip())
            start = i + 1
    for term in terms:
        if " in " in term:
            key, values = term.split(" in ")
            if labels.get(key) not in values.strip("() ").split(","):
                return False
        elif "=" in term:
            key, value = term.split("=")
            if labels.get(key) != value:
                return False
    return True


KINDS = {"namespaces": "Namespace", "pods": "Pod", "services": "Service", "jobs": "Job",
         "mpijobs": "MPIJob", "configmaps": "ConfigMap", "trainjobs": "TrainJob"}  # fmt: skip
NODE_LABELS = {"cloud.google.com/gce-topology-block": "b1",
               "cloud.google.com/gce-topology-subblock": "s1"}  # fmt: skip
"""The labels every node of the fake cluster has (its host and hostname labels are its own)."""


class FakeApiServer:
    """The HTTP layer under `kubernetes.client`: keeps what is created, advances each pod a step
    (Pending, Running, then the launcher's test container exits) on every pod list, and answers a
    launcher's log with `log`."""

    def __init__(
        self, log: str | dict[str, str], exit_code: int = 0, schedulable: bool = True, refuse=()
    ):
        self.log, self.exit_code, self.schedulable = log, exit_code, schedulable
        self.refuse = set(refuse)
        self.objects: dict[str, dict] = {}
        self.created: list[dict] = []
        self.pods: dict[str, dict] = {}
        self.requests: list[str] = []

    def request(self, method, url, headers=None, body=None, post_params=None, **_):
        parsed = urlparse(url)
        path, query = parsed.path, parse_qs(parsed.query)
        self.requests.append(f"{method} {path}")
        parts = path.strip("/").split("/")
        if method == "POST":
            name = body["metadata"]["name"]
            if name in self.refuse:
                return RESTResponse(_Response(403, {"message": f"{name} is forbidden"}))
            self.objects[f"{body['kind']}/{name}"] = body
            self.created.append(body)
            self._spawn(body)
            return RESTResponse(_Response(201, body))
        if method == "DELETE":
            kind = KINDS[parts[-2]]
            if self.objects.pop(f"{kind}/{parts[-1]}", None) is None:
                return RESTResponse(_Response(404, {"code": 404}))
            if kind == "Pod":
                self.pods.pop(parts[-1], None)
            return RESTResponse(_Response(200, {}))
        if parts[-1] == "log":
            logs = self.log if isinstance(self.log, dict) else {"": self.log}
            text = next(text for part, text in logs.items() if part in parts[-2])
            return RESTResponse(_Response(200, text))
        if parts[-2] == "nodes":
            labels = {**NODE_LABELS, "kubernetes.io/hostname": parts[-1],
                      "cloud.google.com/gce-topology-host": f"h-{parts[-1]}"}  # fmt: skip
            node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": parts[-1],
                    "labels": labels}}  # fmt: skip
            return RESTResponse(_Response(200, node))
        if parts[-1] == "pods":
            selector = query.get("labelSelector", [""])[0]
            for pod in self.pods.values():
                self._advance(pod)
            items = [p for p in self.pods.values() if _matches(p["metadata"]["labels"], selector)]
            return RESTResponse(_Response(200, {"kind": "PodList", "items": items}))
        raise AssertionError(f"unexpected {method} {url}")

    def _spawn(self, obj: dict) -> None:
        if obj["kind"] == "Pod":
            self._pod(obj["metadata"]["name"], obj["metadata"]["labels"], obj["spec"])
        elif obj["kind"] == "Job":
            spec = obj["spec"]["template"]["spec"]
            self._pod(f"{obj['metadata']['name']}-x1", {"job-name": obj["metadata"]["name"]}, spec)
        elif obj["kind"] == "TrainJob":
            # Trainer's JobSet: one pod per node, the `node` container (the runtime's is not
            # looked up here: the pods need only their container and labels).
            name = obj["metadata"]["name"]
            for i in range(obj["spec"]["trainer"]["numNodes"]):
                labels = {"jobset.sigs.k8s.io/jobset-name": name,
                          "batch.kubernetes.io/job-completion-index": str(i)}  # fmt: skip
                self._pod(f"{name}-node-0-{i}", labels, {"containers": [{"name": "node"}]})
        elif obj["kind"] == "MPIJob":
            name, specs = obj["metadata"]["name"], obj["spec"]["mpiReplicaSpecs"]
            for role, spec in specs.items():
                for i in range(spec["replicas"]):
                    labels = {"training.kubeflow.org/job-name": name,
                              "training.kubeflow.org/job-role": role.lower()}  # fmt: skip
                    self._pod(f"{name}-{role.lower()}-{i}", labels, spec["template"]["spec"])

    def _pod(self, name: str, labels: dict, spec: dict) -> None:
        launcher = labels.get("name") == "nccl-host-1" or labels.get(
            "training.kubeflow.org/job-role"
        ) == "launcher" or "job-name" in labels or labels.get(
            "batch.kubernetes.io/job-completion-index"
        ) == "0"  # fmt: skip
        self.pods[name] = {
            "metadata": {"name": name, "labels": labels},
            "spec": {"containers": spec["containers"]},
            "status": {"phase": "Pending"},
            "_steps": 0,
            "_launcher": launcher,
        }

    def _advance(self, pod: dict) -> None:
        pod["_steps"] += 1
        if not self.schedulable:
            pod["status"]["conditions"] = [
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                 "message": "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}
            ]  # fmt: skip
            return
        names = [c["name"] for c in pod["spec"]["containers"]]
        if pod["_steps"] == 2:
            pod["spec"]["nodeName"] = f"node-of-{pod['metadata']['name']}"
            pod["status"] = {
                "phase": "Running",
                "containerStatuses": [_status(n, {"running": {}}) for n in names],
            }
        elif pod["_steps"] == 4 and pod["_launcher"]:
            sidecars = len(names) > 1
            pod["status"] = {
                "phase": "Running"
                if sidecars
                else ("Succeeded" if not self.exit_code else "Failed"),
                "containerStatuses": [
                    _status(n, {"running": {}})
                    if sidecars and "daemon" in n
                    else _status(n, {"terminated": {"exitCode": self.exit_code}})
                    for n in names
                ],
            }


def _status(name: str, state: dict) -> dict:
    """A container status as the API server writes it."""
    return {
        "name": name,
        "state": state,
        "image": "registry.example/test:1",
        "imageID": "registry.example/test@sha256:00",
        "ready": "running" in state,
        "restartCount": 0,
    }


def cluster_for(server: FakeApiServer) -> KubeCluster:
    api_client = ApiClient(Configuration(host="https://fixture.invalid"))
    api_client.rest_client = server
    return KubeCluster(api_client)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def run(
    stack: str,
    server: FakeApiServer,
    timeout: float = 600,
    nodes: int = 2,
    upstream_pods: bool = True,
):
    clock, said = Clock(), []
    benchmark = benchmark_for(stack, config(stack), nodes, upstream_pods=upstream_pods)
    report = run_benchmark(benchmark, cluster_for(server), timeout, said.append, clock, clock.sleep)
    return report, said


def assert_all_deleted(server: FakeApiServer) -> None:
    assert server.objects == {}, f"left behind: {sorted(server.objects)}"


# --- the run loop -------------------------------------------------------------------------------


def test_tcpx_run_passes_streams_progress_and_cleans_up(tmp_path):
    server = FakeApiServer(TCPX_LOG)
    report, said = run("a3-prod", server)
    assert report.code == 0, report.error
    (result,) = report.results
    assert result.outcome == "passed"
    assert "  pod nccl-test-host-2: Pending" in said
    assert "  pod nccl-test-host-2: Running" in said
    assert any(
        line.startswith("  pod nccl-test-host-1: Running, nccl-test exited 0") for line in said
    )
    rows = [line for line in said if line.startswith("  all_gather: ")]
    assert len(rows) == 10 and rows[-1].startswith("  all_gather: 536870912 8388608 float")
    assert "  create ConfigMap nccl-configmap" in said
    assert any(line.startswith("PASS all_gather_perf") for line in said)
    assert_all_deleted(server)
    written = write_results(report, tmp_path / "out")
    names = sorted(p.name for p in written)
    assert names == ["all_gather.log", "busbw.png", "summary.json", "summary.md"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["exit_code"] == 0 and summary["runs"][0]["verdicts"][0]["passed"]
    assert "| all_gather | passed | 70.87 / 71.28 GB/s | 63.78 GB/s |" in summary_markdown(report)


def test_the_launcher_starts_last_with_the_nodes_of_the_other_pods():
    server = FakeApiServer(TCPX_LOG)
    run("a3-prod", server)
    launcher = server.created[-1]
    assert launcher["metadata"]["name"] == "nccl-test-host-1"
    test = next(c for c in launcher["spec"]["containers"] if c["name"] == "nccl-test")
    assert test["command"][-1] == '/configs/allgather.sh "$NODE_NAME" node-of-nccl-test-host-2'


def test_below_threshold_fails_with_exit_1_and_cleans_up():
    server = FakeApiServer(below(TCPX_LOG))
    report, said = run("a3-prod", server)
    assert report.code == 1
    assert report.results[0].outcome == "failed"
    assert any(line.startswith("FAIL all_gather_perf") for line in said)
    assert_all_deleted(server)


def test_a_test_that_exits_non_zero_without_a_table_fails():
    server = FakeApiServer("mpirun: connection refused\n", exit_code=1)
    report, said = run("a4-prod", server)
    assert report.code == 1
    assert "holds no nccl-tests table" in "\n".join(report.results[0].lines)
    assert_all_deleted(server)


def test_timeout_is_could_not_run_and_cleans_up():
    server = FakeApiServer(TCPX_LOG, schedulable=False)
    report, said = run("a3-ultra-prod", server, timeout=60)
    assert report.code == 2
    assert "Running when the timeout passed" in report.error
    assert "Insufficient nvidia.com/gpu" in report.error
    assert report.results[0].outcome == "could not run"
    assert_all_deleted(server)


def test_a_refused_object_stops_the_run_and_deletes_what_was_created():
    server = FakeApiServer(TCPX_LOG, refuse={"nccl-test-host-1"})
    report, _ = run("a3-mega-prod", server)
    assert report.code == 2
    assert "refused Pod nccl-test-host-1" in report.error and "forbidden" in report.error
    assert any(r.startswith("DELETE") and r.endswith("/nccl-test-host-2") for r in server.requests)
    assert_all_deleted(server)


def test_oke_runs_both_phases_and_judges_each_job():
    logs = {"8gpu": OKE_LOG, "4gpu-8rails-a": half_node_log(96.29),
            "4gpu-8rails-b": half_node_log(90.0)}  # fmt: skip
    server = FakeApiServer(logs)
    report, said = run("oke-dranet-fabric", server)
    assert [r.outcome for r in report.results] == ["passed", "passed", "failed"]
    assert report.code == 1
    (verdict,) = report.results[2].verdicts
    assert verdict.threshold.min_busbw == pytest.approx(91.48, abs=0.01)
    deletes = [r for r in server.requests if r.startswith("DELETE")]
    assert deletes[0].endswith("/bw-aligned-8gpu-16rails")  # phase 1 deleted before phase 2
    posts = [i for i, r in enumerate(server.requests) if r.startswith("POST")]
    assert server.requests.index(deletes[0]) < posts[1]
    assert_all_deleted(server)


def test_a_log_whose_ranks_do_not_fit_the_run_fails():
    server = FakeApiServer(OKE_LOG)  # 16 ranks, where the half-node jobs run 8
    report, _ = run("oke-dranet-fabric", server)
    assert [r.outcome for r in report.results] == ["passed", "failed", "failed"]
    assert "not 2 nodes x 4 GPUs" in "\n".join(report.results[1].lines)


def test_ack_benchmark_is_not_judged():
    server = FakeApiServer("epoch 1 auc 0.71\n")
    report, said = run("ack-lingjun-fabric", server)
    assert report.code == 2 and report.error is None
    assert report.results[0].outcome == "not judged"
    assert "not judged" in "\n".join(said)
    assert summary_markdown(report).startswith("### Bandwidth: ack-lingjun-fabric — NOT JUDGED")
    assert_all_deleted(server)


def test_cli_bandwidth_writes_the_results(monkeypatch, capsys, tmp_path):
    server = FakeApiServer(TCPX_LOG)
    api_client = ApiClient(Configuration(host="https://fixture.invalid"))
    api_client.rest_client = server
    monkeypatch.setattr(verify_cli, "api_client_for", lambda stack, k: (api_client, "fixture"))
    monkeypatch.setattr(bandwidth, "POLL_SECONDS", 0.0)
    out = tmp_path / "a3"
    assert verify_cli.main(["a3-prod", "--bandwidth", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "OK a3-prod bandwidth: all_gather passed" in printed
    assert (out / "summary.md").is_file() and (out / "busbw.png").is_file()
    assert_all_deleted(server)


# --- the run as a user's job ---------------------------------------------------------------------


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_the_default_run_is_a_users_trainjob_on_the_fabrics_runtime(stack):
    cfg = config(stack)
    benchmark = benchmark_for(stack, cfg, 2)
    queue = spec_of(cfg.platform).training_queue_module().training_queue_of(cfg)
    assert benchmark.setup == []  # the training namespace is the stack's
    ((job,),) = [phase.objects for phase in benchmark.phases]
    validate_object(job)  # against Kubeflow Trainer's vendored TrainJob CRD
    assert job["metadata"]["namespace"] == queue["namespace"]
    assert "kueue.x-k8s.io/queue-name" not in job["metadata"]["labels"]  # the default LocalQueue
    spec = job["spec"]
    assert spec["runtimeRef"] == {"name": queue["runtime"]["name"]}
    # Only what a user's job gives: no image, resources, volumes or env of the fabric.
    assert set(spec["trainer"]) == {"command", "numNodes", "numProcPerNode"}
    assert spec["trainer"]["command"][:2] == ["bash", "-c"]
    assert benchmark.placement_levels == queue.get("topology_levels", [])


def test_a_queued_run_is_judged_and_says_where_kueue_placed_it():
    server = FakeApiServer(TCPX_LOG)
    report, said = run("a3-prod", server, upstream_pods=False)
    assert report.code == 0, said
    text = "\n".join(said)
    assert "placement: 2 node(s)" in text
    assert "cloud.google.com/gce-topology-subblock: one domain: s1" in text
    assert "cloud.google.com/gce-topology-host: 2 domains (spread)" in text
    assert [o["kind"] for o in server.created] == ["TrainJob"]
    assert_all_deleted(server)


def test_the_allgather_script_prints_a_table_the_judge_reads():
    ranks, hosts = 16, ["node-a"] * 8 + ["node-b"] * 8
    lines = [
        "# Collective test starting: all_gather_perf",
        *allgather_bench.rank_lines(hosts, list(range(8)) * 2),
        *allgather_bench.HEADER,
        *[allgather_bench.row(s, ranks, s / 40e9, s / 41e9) for s in allgather_bench.sizes()],
        *allgather_bench.closing_lines([37.5]),
    ]
    (table,) = parse_log("\n".join(lines))
    assert table.collective == "all_gather" and table.hosts == 2
    assert table.ranks == (16, "the rank lines")
    last = table.rows[-1]
    assert last.size == 8 << 30 and last.out_of_place.busbw == pytest.approx(37.5, abs=0.01)


def test_cli_refuses_one_node(capsys):
    assert verify_cli.main(["a3-prod", "--bandwidth", "--nodes", "1"]) == 2
    assert "--nodes 2 or more" in capsys.readouterr().err
