"""`python -m verify STACK --bandwidth [--nodes N]` (what `make verify STACK=... BANDWIDTH=1` runs):
run the fabric's NCCL test on the deployed cluster, judge it, clean up.

Per fabric, the benchmark is the one its guide or seed runs, built here by pure functions (the
manifests are what the tests validate):

- GPUDirect-TCPX (A3 High): seed 000's test pods (`gpu_fabric/gke/tcpx.py`, `with_tcpx`), the
  all-gather of upstream's `nccl-config-default.yaml` (`/configs/allgather.sh NODE...`, which takes
  the nodes' names: the pods use the host network);
- GPUDirect-TCPXO (A3 Mega): upstream's `gpudirect-tcpxo` test pods
  (`gpu_fabric/gke/upstream/nccl-test-tcpxo.yaml`) and their
  `/scripts/allgather.sh nccl-host-1 ...`;
- gIB (A3 Ultra, A4, A4X): upstream's `gpudirect-rdma` test pods (`nccl-test-rdma.yaml`) and
  `/usr/local/gib/scripts/run_nccl_tests.sh -t all_gather -b 1K -e 8G nccl-host-1 ...`;
- oke-dranet: seed 002's `all_reduce_perf` MPIJob over the aligned whole-node claim, then its two
  jobs over the half-node claims at once (`gpu_fabric/oke/nccl_jobs.py`);
- ack-lingjun: seed 004's `hps-benchmark` Job (`gpu_fabric/ack/rdma_pods.py`). Its output is not
  nccl-tests and the catalog has no threshold for it: the log is kept and the run "not judged".

Where upstream's pods wait (`sleep infinity`) for a `kubectl exec`, the first pod here runs the
command itself once the others are Running, so the result is that container's log. Everything is
created in a namespace of its own (on OKE: the stack's RDMA namespace, where the claim templates
are) and deleted at the end, also when the run fails or is interrupted.

Exit codes: 0 every run judged and at or above its threshold; 1 a run below it, with wrong
results, or failed (its test exited non-zero or printed no table); 2 the benchmark could not run
(the cluster refused an object, a pod could not start, the timeout passed) or has no threshold.
"""

from __future__ import annotations

import copy
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from gpu_fabric import yaml_files
from gpu_fabric.workload_security import SKIP, secure_workload, waivers

from .nccl import LogError, Table, Verdict, describe, describe_verdict, judge, parse_log
from .nccl_judge import Hardware, catalog_floor, run_shape, write_plot

UPSTREAM = Path(__file__).resolve().parent.parent / "gpu_fabric" / "gke" / "upstream"
NAMESPACE = "gpu-fabric-bandwidth"
RUN_LABEL = "gpu-fabric/bandwidth"
"""Label on every pod and Service created here (value: the stack)."""
TCPX_CONFIG_MAP = "nccl-configmap"
CONFIG_MAP_SOURCE_NAMESPACES = ("gpu-fabric-smoke-test", "default")
"""Where upstream's nccl-configmap is looked for, in order: the smoke test's namespace
(docs/gke.md applies it there), then `default` (the GKE guide's)."""
NCCL_CONFIG_URL = (
    "https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/master/"
    "gpudirect-tcpx/nccl-config-default.yaml"
)
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


class CouldNotRun(Exception):
    """The benchmark could not be run: says why and what to do (exit 2)."""


# --- what runs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One test whose result is the log of one container."""

    name: str
    namespace: str
    pods: str
    """Label selector of all its pods (progress lines)."""
    launcher: str
    """Label selector of the pod whose `container` prints the result."""
    container: str
    collective: str | None
    """The nccl-tests collective; None: the output is not nccl-tests (not judged)."""
    nodes: int
    gpus_per_node: int


@dataclass
class Phase:
    """Objects created together and the runs they hold; deleted when the phase ends."""

    objects: list[dict]
    runs: list[Run]
    wait_running: str | None = None
    """Label selector of pods that must be Running before `launch` is called."""
    launch: Callable[[list[str]], list[dict]] | None = None
    """The objects created then, given the nodes of the `wait_running` pods (sorted by pod)."""


@dataclass
class Benchmark:
    stack: str
    hardware: Hardware
    what: str
    """One line: what runs and where it comes from."""
    namespace: str
    setup: list[dict]
    """Created first and deleted last (the namespace)."""
    phases: list[Phase]
    copy_config_map: str | None = None
    """A ConfigMap of `default` the pods mount: copied into the namespace (2 when absent)."""

    def manifests(self) -> list[dict]:
        """Every object, with each `launch` given placeholder node names."""
        out = list(self.setup)
        for phase in self.phases:
            out += phase.objects
            if phase.launch:
                out += phase.launch([f"node-{i}" for i in range(1, phase.runs[0].nodes)])
        return out


def namespace_manifest(name: str, stack: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {RUN_LABEL: stack}},
    }


def _label(obj: dict, stack: str) -> dict:
    obj["metadata"].setdefault("labels", {})[RUN_LABEL] = stack
    return obj


def _in(obj: dict, namespace: str) -> dict:
    obj["metadata"]["namespace"] = namespace
    return obj


def _wait_for_hosts(hosts: list[str]) -> str:
    """Shell lines that wait until every host name resolves (the headless Services answer once
    their pod runs)."""
    return "\n".join(
        f'until getent hosts {h} >/dev/null; do echo "waiting for {h}"; sleep 5; done'
        for h in hosts
    )


def _pod(manifests: list[dict], name: str) -> dict:
    return next(m for m in manifests if m["kind"] == "Pod" and m["metadata"]["name"] == name)


def _host_pods(manifests: list[dict], stack: str, namespace: str) -> list[dict]:
    """Services and pods of hosts 1..N, labelled and in the namespace, Services first."""
    out = [_in(_label(copy.deepcopy(m), stack), namespace) for m in manifests]
    return [m for m in out if m["kind"] == "Service"] + [m for m in out if m["kind"] == "Pod"]


def _upstream_pods(file: str, hosts: int) -> list[dict]:
    """Upstream's two-host test file, as N hosts (host 2's objects renamed for each)."""
    objects = [o for o in yaml_files.read_all(UPSTREAM / file) if o]
    service = next(o for o in objects if o["kind"] == "Service")
    pod = next(o for o in objects if o["kind"] == "Pod")
    out: list[dict] = []
    for host in range(1, hosts + 1):
        s = copy.deepcopy(service)
        s["metadata"]["name"] = f"nccl-host-{host}"
        s["spec"]["selector"]["name"] = f"nccl-host-{host}"
        p = copy.deepcopy(pod)
        p["metadata"]["name"] = f"nccl-test-host-{host}"
        p["metadata"]["labels"]["name"] = f"nccl-host-{host}"
        p["spec"]["hostname"] = f"host{host}"
        p["spec"]["subdomain"] = f"nccl-host-{host}"
        out += [s, p]
    return out


def _interfaces(pod: dict, networks: list[str], first_device: int) -> None:
    """The pod's multi-network annotation for the stack's Network objects (upstream names them
    `vpc1`.. or `rdma-0`..; a stack may name them otherwise)."""
    interfaces = [{"interfaceName": "eth0", "network": "default"}] + [
        {"interfaceName": f"eth{first_device + i}", "network": name}
        for i, name in enumerate(networks)
    ]
    pod["metadata"]["annotations"]["networking.gke.io/interfaces"] = json.dumps(interfaces)


def _gke_phase(
    stack: str, manifests: list[dict], hosts: int, gpus: int, container: str, command: Callable
) -> Phase:
    """Hosts 2..N start first; host 1 (the launcher) once they run, given their nodes."""
    launcher = _pod(manifests, "nccl-test-host-1")
    peers = [m for m in manifests if m is not launcher]

    def launch(nodes: list[str]) -> list[dict]:
        pod = copy.deepcopy(launcher)
        target = next(c for c in pod["spec"]["containers"] if c["name"] == container)
        command(target, nodes)
        pod["spec"]["restartPolicy"] = "Never"
        return [pod]

    run = Run(
        name="all_gather",
        namespace=NAMESPACE,
        pods=f"{RUN_LABEL}={stack}",
        launcher="name=nccl-host-1",
        container=container,
        collective="all_gather",
        nodes=hosts,
        gpus_per_node=gpus,
    )
    peer_names = [f"nccl-host-{h}" for h in range(2, hosts + 1)]
    return Phase(
        objects=peers,
        runs=[run],
        wait_running=f"{RUN_LABEL}={stack},name in ({','.join(peer_names)})",
        launch=launch,
    )


def tcpx_benchmark(stack: str, hardware: Hardware, cfg: Any, hosts: int) -> Benchmark:
    """A3 High: seed 000's pods; host 1 runs `/configs/allgather.sh` over every pod's node."""
    from gpu_fabric.gke.tcpx import smoke_test_manifests

    images = cfg.tcpx_images
    manifests = _host_pods(
        smoke_test_manifests(images.installer, images.daemon, hosts), stack, NAMESPACE
    )
    for pod in (m for m in manifests if m["kind"] == "Pod"):
        test = next(c for c in pod["spec"]["containers"] if c["name"] == "nccl-test")
        test["env"].append(
            {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}
        )

    def command(container: dict, nodes: list[str]) -> None:
        # The guide: `kubectl exec ... nccl-test-host-1 -- /configs/allgather.sh ${nodes[@]}`.
        container["command"] = [
            "/bin/sh",
            "-c",
            f'/configs/allgather.sh "$NODE_NAME" {" ".join(nodes)}',
        ]

    phase = _gke_phase(stack, manifests, hosts, hardware.gpus_per_node or 8, "nccl-test", command)
    return Benchmark(
        stack,
        hardware,
        f"all_gather over GPUDirect-TCPX on {hosts} {hardware.machine} nodes (seed 000's test "
        "pods, upstream's /configs/allgather.sh)",
        NAMESPACE,
        [namespace_manifest(NAMESPACE, stack)],
        [phase],
        copy_config_map=TCPX_CONFIG_MAP,
    )


def tcpxo_benchmark(stack: str, hardware: Hardware, cfg: Any, hosts: int) -> Benchmark:
    """A3 Mega: upstream's TCPXO test pods; host 1 runs their `/scripts/allgather.sh`."""
    manifests = _host_pods(_upstream_pods("nccl-test-tcpxo.yaml", hosts), stack, NAMESPACE)
    networks = [n for plan in cfg.nic_groups for n in plan.object_names]
    images = cfg.tcpxo_images
    for pod in (m for m in manifests if m["kind"] == "Pod"):
        _interfaces(pod, networks, 1)
        for container in pod["spec"]["containers"]:
            container["image"] = (
                images.daemon if container["name"] == "tcpxo-daemon" else images.installer
            )
            if container["name"] == "nccl-test":
                container["command"][-1] = container["command"][-1].replace(
                    "NHOSTS=2", f"NHOSTS={hosts}"
                )
    names = [f"nccl-host-{h}" for h in range(1, hosts + 1)]

    def command(container: dict, nodes: list[str]) -> None:
        # README: `kubectl exec --container=nccl-test nccl-test-host-1 -- /scripts/allgather.sh
        # nccl-host-1 nccl-host-2`, run here in place of the pod's `sleep infinity`.
        script = container["command"][-1]
        run = f"{_wait_for_hosts(names)}\n/scripts/allgather.sh {' '.join(names)}\n"
        container["command"][-1] = script.replace("sleep infinity;\n", run)

    phase = _gke_phase(stack, manifests, hosts, hardware.gpus_per_node or 8, "nccl-test", command)
    return Benchmark(
        stack,
        hardware,
        f"all_gather over GPUDirect-TCPXO on {hosts} {hardware.machine} nodes (upstream's "
        "gpudirect-tcpxo nccl-test pods and /scripts/allgather.sh)",
        NAMESPACE,
        [namespace_manifest(NAMESPACE, stack)],
        [phase],
    )


def gib_test_image(installer: str) -> str:
    """The gIB diagnostic image (NCCL, the plugin and nccl-tests) of an installer image: upstream
    pairs `nccl-plugin-gib:v1.1.1` with `nccl-plugin-gib-diagnostic:v1.1.1`; on arm64 (A4X)
    `nccl-plugin-gib-arm64` with `nccl-plugin-gib-diagnostic-arm64` (UNVERIFIED tag pairing)."""
    return re.sub(r"/nccl-plugin-gib(-arm64)?:", r"/nccl-plugin-gib-diagnostic\1:", installer)


def gib_benchmark(stack: str, hardware: Hardware, cfg: Any, hosts: int) -> Benchmark:
    """A3 Ultra, A4, A4X: upstream's gIB test pods; host 1 runs `run_nccl_tests.sh`."""
    manifests = _host_pods(_upstream_pods("nccl-test-rdma.yaml", hosts), stack, NAMESPACE)
    rdma = [n for plan in cfg.nic_groups if plan.group.device_mode.value == "RDMA"
            for n in plan.object_names]  # fmt: skip
    gpus = hardware.gpus_per_node or 8
    for pod in (m for m in manifests if m["kind"] == "Pod"):
        _interfaces(pod, rdma, 2)
        test = pod["spec"]["containers"][0]
        test["image"] = gib_test_image(cfg.gib_installer_image)
        test["resources"]["limits"]["nvidia.com/gpu"] = gpus
    names = [f"nccl-host-{h}" for h in range(1, hosts + 1)]

    def command(container: dict, nodes: list[str]) -> None:
        # README: `kubectl exec nccl-test-host-1 -it -- /usr/local/gib/scripts/run_nccl_tests.sh
        # -t all_gather -b 1K -e 8G nccl-host-1 nccl-host-2`.
        container["args"] = [
            container["args"][0].replace(
                "sleep infinity\n",
                f"{_wait_for_hosts(names)}\n/usr/local/gib/scripts/run_nccl_tests.sh -t "
                f"all_gather -b 1K -e 8G {' '.join(names)}\n",
            )
        ]

    phase = _gke_phase(stack, manifests, hosts, gpus, "test", command)
    return Benchmark(
        stack,
        hardware,
        f"all_gather over gIB (GPUDirect-RDMA) on {hosts} {hardware.machine} nodes (upstream's "
        "gpudirect-rdma nccl-test pods and run_nccl_tests.sh)",
        NAMESPACE,
        [namespace_manifest(NAMESPACE, stack)],
        [phase],
    )


def oke_benchmark(stack: str, hardware: Hardware, cfg: Any, hosts: int) -> Benchmark:
    """oke-dranet: the MPIJob over the aligned whole-node claim, then two over the half-node
    claims at once (seed 002's runs)."""
    from gpu_fabric.oke.claim_plan import Claim, plan_claim
    from gpu_fabric.oke.dranet import NAMESPACE as RDMA_NAMESPACE
    from gpu_fabric.oke.nccl_jobs import mpijob_manifest

    gpus, rails = cfg.shape.gpu_count, cfg.shape.rail_count
    shape = cfg.gpu_nodes.shape
    plans = [
        plan_claim(Claim(c.name, c.gpus, c.rails, c.aligned, c.roots), cfg.shape, shape)
        for c in cfg.claims
        if c.aligned and c.gpus and c.rails
    ]
    whole = next((p for p in plans if (p.gpus, p.rails) == (gpus, rails)), None)
    halves = [p for p in plans if (p.gpus * 2, p.rails * 2) == (gpus, rails)][:2]
    if whole is None and len(halves) < 2:
        raise CouldNotRun(
            f"the stack declares no aligned claim of {gpus} GPUs and {rails} rails nor two of "
            f"{gpus // 2} and {rails // 2} (gpu-fabric:claims); add them to run the tests"
        )

    def job(plan: Any) -> tuple[dict, Run]:
        name = f"bw-{plan.name}"
        manifest = mpijob_manifest(
            name, plan, gpus, hosts, shape, cfg.nccl_tests_image, RDMA_NAMESPACE
        )
        manifest["metadata"]["labels"] = {RUN_LABEL: stack}
        manifest["spec"]["runPolicy"]["backoffLimit"] = 0  # one launcher: its log is the result
        run = Run(
            name=name,
            namespace=RDMA_NAMESPACE,
            pods=f"training.kubeflow.org/job-name={name}",
            launcher=f"training.kubeflow.org/job-name={name},training.kubeflow.org/job-role=launcher",
            container="mpi-launcher",
            collective="all_reduce",
            nodes=hosts,
            gpus_per_node=plan.gpus,
        )
        return manifest, run

    phases = []
    for group in ([whole] if whole else [], halves if len(halves) == 2 else []):
        if group:
            jobs = [job(p) for p in group]
            phases.append(Phase([m for m, _ in jobs], [r for _, r in jobs]))
    return Benchmark(
        stack,
        hardware,
        f"all_reduce MPIJobs on {hosts} {shape} nodes (seed 002): "
        + "; then ".join(" and ".join(r.name for r in p.runs) for p in phases),
        RDMA_NAMESPACE,
        [],
        phases,
    )


def ack_benchmark(stack: str, hardware: Hardware, cfg: Any, hosts: int) -> Benchmark:
    """ack-lingjun: seed 004's hps-benchmark Job on one Lingjun node (it is not nccl-tests)."""
    from gpu_fabric.ack.rdma_pods import BENCHMARK_GPUS, BENCHMARK_NAME, benchmark_job

    if not cfg.images.benchmark:
        raise CouldNotRun(
            "the hps-benchmark Job needs an image (seed 004 leaves it blank): set "
            "gpu-fabric:images.benchmark in the stack"
        )
    manifest = benchmark_job(
        cfg.images.benchmark, BENCHMARK_GPUS, cfg.rdma.non_host_network, {RUN_LABEL: stack}
    )
    name = f"bw-{BENCHMARK_NAME}"
    manifest["metadata"] = {
        "name": name,
        "namespace": NAMESPACE,
        "labels": {RUN_LABEL: stack},
        "annotations": {
            k: v for k, v in manifest["metadata"]["annotations"].items() if k.startswith(SKIP)
        },
    }
    manifest["spec"]["backoffLimit"] = 0
    run = Run(
        name=name,
        namespace=NAMESPACE,
        pods=f"job-name={name}",
        launcher=f"job-name={name}",
        container=BENCHMARK_NAME,
        collective=None,
        nodes=1,
        gpus_per_node=BENCHMARK_GPUS,
    )
    return Benchmark(
        stack,
        hardware,
        "seed 004's hps-benchmark Job with rdma/hca on one Lingjun node (not nccl-tests)",
        NAMESPACE,
        [namespace_manifest(NAMESPACE, stack)],
        [Phase([manifest], [run])],
    )


BUILDERS: dict[str, Callable[[str, Hardware, Any, int], Benchmark]] = {
    "gpudirect-tcpx": tcpx_benchmark,
    "gpudirect-tcpxo": tcpxo_benchmark,
    "gpudirect-rdma": gib_benchmark,
    "oke-dranet": oke_benchmark,
    "ack-lingjun": ack_benchmark,
}


def hardware_of(stack: str, cfg: Any) -> Hardware:
    """What `verify.nccl_judge.stack_hardware` reads, from a parsed config."""
    if hasattr(cfg, "machine"):
        return Hardware(
            stack, cfg.machine.fabric, cfg.pool.machine_type, cfg.machine.accelerator.count
        )
    if hasattr(cfg, "shape"):
        return Hardware(stack, cfg.shape.platform, cfg.gpu_nodes.shape, cfg.shape.gpu_count)
    return Hardware(stack, str(getattr(cfg.platform, "value", cfg.platform)), None, None)


def benchmark_for(stack: str, cfg: Any, nodes: int = 2) -> Benchmark:
    """The benchmark of the stack's fabric on `nodes` GPU nodes (CouldNotRun when there is none)."""
    if nodes < 1:
        raise CouldNotRun("--nodes must be a positive whole number")
    hardware = hardware_of(stack, cfg)
    builder = BUILDERS.get(hardware.fabric)
    if builder is None:
        raise CouldNotRun(f"no bandwidth test for fabric {hardware.fabric!r}")
    if hardware.fabric != "ack-lingjun" and nodes < 2:
        raise CouldNotRun("the NCCL tests run across nodes: give --nodes 2 or more")
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
    def config_map(self, namespace: str, name: str) -> dict | None: ...


_CUSTOM = {"MPIJob": "mpijobs"}


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

    def config_map(self, namespace: str, name: str) -> dict | None:
        from kubernetes.client.exceptions import ApiException

        try:
            found = self.core.read_namespaced_config_map(name, namespace)
        except ApiException as err:
            if err.status == 404:
                return None
            raise
        return self.api_client.sanitize_for_serialization(found)


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
            watcher.pods(run.namespace, run.pods)
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
                hint = (
                    " (is the Kubeflow MPI Operator installed? its CRD mpijobs.kubeflow.org)"
                    if obj["kind"] == "MPIJob" and getattr(err, "status", None) == 404
                    else ""
                )
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
        if benchmark.copy_config_map:
            _copy_config_map(cluster, benchmark, create)
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


def _copy_config_map(cluster: Cluster, benchmark: Benchmark, create: Callable) -> None:
    name = benchmark.copy_config_map
    assert name
    found = next(
        (m for ns in CONFIG_MAP_SOURCE_NAMESPACES if (m := cluster.config_map(ns, name))), None
    )
    if found is None:
        raise CouldNotRun(
            f"ConfigMap {name} (upstream's all-gather scripts) is in none of the namespaces "
            f"{', '.join(CONFIG_MAP_SOURCE_NAMESPACES)}: kubectl apply -n "
            f"{CONFIG_MAP_SOURCE_NAMESPACES[0]} -f {NCCL_CONFIG_URL}"
        )
    create(
        [
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": name,
                    "namespace": benchmark.namespace,
                    "labels": {RUN_LABEL: benchmark.stack},
                },
                "data": found.get("data") or {},
            }
        ]
    )


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
