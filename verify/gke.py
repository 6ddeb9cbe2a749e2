"""What a healthy GPU fabric looks like in the cluster, and the check against it.

For A4X this asserts what NVIDIA AICR's `gke-gb200-rdma` health check asserts (its A4X
networking guide): the five
Network/GKENetworkParamSet pairs by exact name with their deviceMode, `parametersRef` linkage and
Ready conditions, and the installer DaemonSet fully rolled out with no pod Pending, Failed or
crash-looping. The same expectations hold for every gpu-fabric platform, derived from its stack.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from gpu_fabric.catalog import catalog
from gpu_fabric.gke.config import GkeStackConfig
from gpu_fabric.gke.fabrics.nccl_installer import (
    device_injector_manifest,
    installer_file,
    installer_manifest,
)
from gpu_fabric.gke.from_stack import gpu_networks
from verify.rollout import daemon_set_and_pods, daemon_set_problems

GROUP = "networking.gke.io"


@dataclass(frozen=True)
class ExpectedNetwork:
    name: str
    device_mode: str
    vpc: str
    subnet: str


@dataclass(frozen=True)
class Expected:
    networks: list[ExpectedNetwork]
    installer_namespace: str
    installer_name: str
    installer_selector: dict[str, str]
    injector: tuple[str, str, dict[str, str]] | None = None
    """A3 Mega: the NRI device injector DaemonSet (namespace, name, selector); None elsewhere."""

    @property
    def summary(self) -> str:
        """What an OK means, in one line."""
        names = ", ".join(n.name for n in self.networks)
        injector = f", {self.injector[0]}/{self.injector[1]}" if self.injector else ""
        return (
            f"Networks and GKENetworkParamSets {names} Ready; "
            f"{self.installer_namespace}/{self.installer_name}{injector} rolled out"
        )


def expected_from(cfg: GkeStackConfig) -> Expected:
    """What the stack creates, in the names the cluster will show."""
    subnets = [
        (vpc["network_name"], s["name"]) for vpc in gpu_networks(cfg) for s in vpc["subnets"]
    ]
    modes_and_names = [
        (plan.group.device_mode.value, name)
        for plan in cfg.nic_groups
        for name in plan.object_names
    ]
    installer = installer_manifest(installer_file(cfg.machine), "-", "-")
    return Expected(
        networks=[
            ExpectedNetwork(name, mode, vpc, subnet)
            for (mode, name), (vpc, subnet) in zip(modes_and_names, subnets, strict=True)
        ],
        installer_namespace=installer["metadata"]["namespace"],
        installer_name=installer["metadata"]["name"],
        installer_selector=installer["spec"]["selector"]["matchLabels"],
        injector=expected_injector(cfg),
    )


def expected_injector(cfg: GkeStackConfig) -> tuple[str, str, dict[str, str]] | None:
    """GPUDirect-TCPXO (A3 Mega): the NRI device injector DaemonSet, which gives the tcpxo-daemon
    its GPU devices (container-engine-accelerators gpudirect-tcpxo README).
    Expected whoever owns the installer: an external owner's bundle applies the same one."""
    if not catalog().fabrics[cfg.machine.fabric].nri_device_injector:
        return None
    manifest = device_injector_manifest("-")
    metadata, spec = manifest["metadata"], manifest["spec"]
    return metadata["namespace"], metadata["name"], spec["selector"]["matchLabels"]


def injector_problems(expected: Expected, snapshot: Snapshot) -> list[str]:
    """What keeps the NRI device injector from being rolled out, as the installer's check."""
    if expected.injector is None:
        return []
    namespace, name, _selector = expected.injector
    return daemon_set_problems(
        namespace, name, snapshot.injector_daemon_set, snapshot.injector_pods
    )


@dataclass
class Snapshot:
    """API objects as the cluster returned them (camelCase dicts)."""

    param_sets: list[dict[str, Any]] = field(default_factory=list)
    networks: list[dict[str, Any]] = field(default_factory=list)
    daemon_set: dict[str, Any] | None = None
    pods: list[dict[str, Any]] = field(default_factory=list)
    injector_daemon_set: dict[str, Any] | None = None
    """A3 Mega: the NRI device injector DaemonSet (see `expected_injector`)."""
    injector_pods: list[dict[str, Any]] = field(default_factory=list)


def _by_name(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects}


def _not_ready(obj: dict[str, Any]) -> str | None:
    """None if the Ready condition is True, else why not."""
    conditions = (obj.get("status") or {}).get("conditions") or []
    ready = next((c for c in conditions if c.get("type") == "Ready"), None)
    if ready is None:
        return "has no Ready condition yet"
    if ready.get("status") != "True":
        reason = ready.get("reason") or "no reason given"
        message = ready.get("message")
        return f"is not Ready ({reason}{': ' + message if message else ''})"
    return None


def check(expected: Expected, snapshot: Snapshot) -> list[str]:
    """Everything that is missing or wrong, one readable line each; empty when healthy."""
    problems: list[str] = []
    param_sets, networks = _by_name(snapshot.param_sets), _by_name(snapshot.networks)
    for want in expected.networks:
        param_set = param_sets.get(want.name)
        if param_set is None:
            problems.append(f"GKENetworkParamSet {want.name}: missing")
        else:
            spec = param_set.get("spec") or {}
            if spec.get("deviceMode") != want.device_mode:
                problems.append(
                    f"GKENetworkParamSet {want.name}: deviceMode is {spec.get('deviceMode')!r}, "
                    f"expected {want.device_mode!r}"
                )
            for key, value in (("vpc", want.vpc), ("vpcSubnet", want.subnet)):
                if spec.get(key) != value:
                    problems.append(
                        f"GKENetworkParamSet {want.name}: {key} is {spec.get(key)!r}, the stack "
                        f"has {value!r}"
                    )
            if reason := _not_ready(param_set):
                problems.append(f"GKENetworkParamSet {want.name}: {reason}")

        network = networks.get(want.name)
        if network is None:
            problems.append(f"Network {want.name}: missing")
            continue
        spec = network.get("spec") or {}
        if spec.get("type") != "Device":
            problems.append(f"Network {want.name}: type is {spec.get('type')!r}, expected 'Device'")
        ref = spec.get("parametersRef") or {}
        wanted_ref = {"group": GROUP, "kind": "GKENetworkParamSet", "name": want.name}
        if {k: ref.get(k) for k in wanted_ref} != wanted_ref:
            problems.append(
                f"Network {want.name}: parametersRef is {ref or None}, expected {wanted_ref}"
            )
        if reason := _not_ready(network):
            problems.append(f"Network {want.name}: {reason}")

    problems += daemon_set_problems(
        expected.installer_namespace, expected.installer_name, snapshot.daemon_set, snapshot.pods
    )
    problems += injector_problems(expected, snapshot)
    return problems


def read_snapshot(expected: Expected, api_client: Any) -> Snapshot:
    """Fetch the objects `check` needs; absent ones come back empty or None."""
    from kubernetes import client

    custom = client.CustomObjectsApi(api_client)

    def cluster_objects(plural: str) -> list[dict]:
        # The client types the decoded JSON as `object`: a list is a mapping with `items`.
        listed = cast(dict[str, Any], custom.list_cluster_custom_object(GROUP, "v1", plural))
        return listed["items"]

    daemon_set, pods = daemon_set_and_pods(
        api_client,
        expected.installer_namespace,
        expected.installer_name,
        expected.installer_selector,
    )
    injector_daemon_set, injector_pods = (
        daemon_set_and_pods(api_client, *expected.injector) if expected.injector else (None, [])
    )
    return Snapshot(
        param_sets=cluster_objects("gkenetworkparamsets"),
        networks=cluster_objects("networks"),
        daemon_set=daemon_set,
        pods=pods,
        injector_daemon_set=injector_daemon_set,
        injector_pods=injector_pods,
    )


def kubeconfig_command(cfg: GkeStackConfig, stack: str) -> str:
    """How a user writes a kubeconfig for this stack's cluster (GKE's documented command)."""
    return (
        f"gcloud container clusters get-credentials {cfg.gke.name} --location {cfg.region} "
        f"--project {cfg.project}"
    )
