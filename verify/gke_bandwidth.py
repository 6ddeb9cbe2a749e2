"""The GKE fabrics' bandwidth benchmarks (`make verify BANDWIDTH=1`; the run loop is
`verify/bandwidth.py`), one per fabric, each the one its guide runs:

- GPUDirect-TCPX (A3 High): the GKE GPUDirect-TCPX guide's test pods
  (`gpu_fabric/gke/fabrics/tcpx.py`, `with_tcpx`), the all-gather of upstream's
  `nccl-config.yaml` (`/configs/allgather.sh NODE...`, which takes the nodes' names: the pods
  use the host network);
- GPUDirect-TCPXO (A3 Mega): upstream's `gpudirect-tcpxo` test pods
  (`verify/upstream/nccl-test-tcpxo.yaml`) and their
  `/scripts/allgather.sh nccl-host-1 ...`;
- gIB (A3 Ultra, A4, A4X): upstream's `gpudirect-rdma` test pods (`nccl-test-rdma.yaml`) and
  `/usr/local/gib/scripts/run_nccl_tests.sh -t all_gather -b 1K -e 8G nccl-host-1 ...`.

Where upstream's pods wait (`sleep infinity`) for a `kubectl exec`, the first pod here runs the
command itself once the others are Running, so the result is that container's log.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpu_fabric import yaml_files
from gpu_fabric.catalog import Fabric
from gpu_fabric.nvidia import GPU_RESOURCE

from .benchmark import (
    NAMESPACE,
    RUN_LABEL,
    Benchmark,
    Phase,
    Run,
    namespace_manifest,
)
from .nccl_judge import Hardware

UPSTREAM = Path(__file__).with_name("upstream")


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
    """A3 High: the GKE GPUDirect-TCPX guide's pods; host 1 runs `/configs/allgather.sh` over
    every pod's node."""
    from gpu_fabric.gke.fabrics.tcpx import nccl_config_map, smoke_test_manifests

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
        f"all_gather over GPUDirect-TCPX on {hosts} {hardware.machine} nodes (the GKE "
        "GPUDirect-TCPX guide's test pods, upstream's /configs/allgather.sh)",
        NAMESPACE,
        # Upstream's all-gather scripts (gpudirect-tcpx/nccl-config.yaml, vendored), which the
        # pods mount at /configs, created with the namespace.
        [namespace_manifest(NAMESPACE, stack), _in(_label(nccl_config_map(), stack), NAMESPACE)],
        [phase],
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
        test["resources"]["limits"][GPU_RESOURCE] = gpus
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


BUILDERS: dict[str, Callable[[str, Hardware, Any, int], Benchmark]] = {
    Fabric.TCPX: tcpx_benchmark,
    Fabric.TCPXO: tcpxo_benchmark,
    Fabric.GIB: gib_benchmark,
}
"""The benchmark of each GKE fabric (`Machine.fabric`)."""
MIN_NODES = 2
"""The tests run across nodes."""
