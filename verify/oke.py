"""What a healthy oke-dranet cluster looks like (the DRANET-on-OKE write-up), and the check
against it.

Fail-closed: both DeviceClasses; the DRANET and NVIDIA DRA kubelet-plugin DaemonSets rolled out on
every GPU node; every GPU node publishing all its rails (`dra.net`) and GPUs (`gpu.nvidia.com`) with
`resource.kubernetes.io/pcieRoot`, grouped per PCIe root as the catalog says (what makes aligned
claims satisfiable); the RDMA namespace's Pod Security label; the tools ConfigMap, byte for byte.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from gpu_fabric.catalog import PcieRoot, catalog
from gpu_fabric.nvidia import GPU_DEVICE_CLASS
from gpu_fabric.oke.claims.component import INSTANCE_TYPE_LABEL, PCIE_ROOT, RAIL_DEVICE_CLASS
from gpu_fabric.oke.config import OkeDranetConfig
from gpu_fabric.oke.dranet.component import namespace_manifest, tools_config_map
from verify.rollout import daemon_set_and_pods, daemon_set_problems, read_or_none


@dataclass(frozen=True)
class ExpectedDaemonSet:
    namespace: str
    name: str
    selector: dict[str, str]


@dataclass(frozen=True)
class Expected:
    shape: str
    nodes: int
    """GPU nodes the stack creates: each must have joined."""
    roots: list[PcieRoot]
    daemon_sets: list[ExpectedDaemonSet]
    namespace: dict[str, Any]
    tools: dict[str, Any]

    @property
    def device_classes(self) -> list[str]:
        return [RAIL_DEVICE_CLASS, GPU_DEVICE_CLASS]

    @property
    def summary(self) -> str:
        """What an OK means, in one line."""
        rails = sum(len(r.rails) for r in self.roots)
        gpus = sum(len(r.gpus) for r in self.roots)
        return (
            f"DeviceClasses {', '.join(self.device_classes)}; "
            f"{', '.join(f'{d.namespace}/{d.name}' for d in self.daemon_sets)} rolled out on "
            f"every {self.shape} node; each publishes {rails} rails and {gpus} GPUs on "
            f"{len(self.roots)} PCIe roots as the catalog says; namespace and tools in place"
        )


def expected_from(cfg: OkeDranetConfig) -> Expected:
    oke = catalog().oke
    return Expected(
        shape=cfg.gpu_nodes.shape,
        nodes=cfg.gpu_nodes.count,
        roots=cfg.shape.pcie_roots,
        daemon_sets=[
            ExpectedDaemonSet(chart.namespace, chart.daemon_set.name, chart.daemon_set.selector)
            for chart in (oke.dranet, catalog().nvidia_dra_driver)
        ],
        namespace=namespace_manifest(),
        tools=tools_config_map(),
    )


@dataclass
class Snapshot:
    """API objects as the cluster returned them (camelCase dicts); absent ones are None."""

    device_classes: list[dict[str, Any]] = field(default_factory=list)
    daemon_sets: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    """By `namespace/name`."""
    pods: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """The pods of each DaemonSet, by `namespace/name`."""
    nodes: list[dict[str, Any]] = field(default_factory=list)
    resource_slices: list[dict[str, Any]] = field(default_factory=list)
    namespace: dict[str, Any] | None = None
    config_map: dict[str, Any] | None = None


def _attribute(device: dict[str, Any], driver: str, name: str) -> Any:
    """A device attribute's value. A driver's own attributes may be stored with or without its
    domain (`dra.net/ifName` or `ifName`, resource.k8s.io/v1 API rule)."""
    attributes = device.get("attributes") or {}
    value = attributes.get(name) or attributes.get(f"{driver}/{name}")
    return next(iter(value.values())) if isinstance(value, dict) and value else None


def _node_devices(slices: list[dict[str, Any]], node: str, driver: str) -> list[dict[str, Any]]:
    return [
        device
        for s in slices
        if (s.get("spec") or {}).get("nodeName") == node and s["spec"].get("driver") == driver
        for device in s["spec"].get("devices") or []
    ]


def _rail_problems(expected: Expected, node: str, slices: list[dict[str, Any]]) -> list[str]:
    rails = [
        d
        for d in _node_devices(slices, node, RAIL_DEVICE_CLASS)
        if str(_attribute(d, RAIL_DEVICE_CLASS, "ifName") or "").startswith("rdma")
        and _attribute(d, RAIL_DEVICE_CLASS, "rdma") is True
    ]
    found: dict[str, set[str]] = defaultdict(set)
    for rail in rails:
        found[_attribute(rail, RAIL_DEVICE_CLASS, PCIE_ROOT) or "(no pcieRoot)"].add(
            _attribute(rail, RAIL_DEVICE_CLASS, "ifName")
        )
    want = {root.name: set(root.rails) for root in expected.roots}
    total = sum(len(r) for r in want.values())
    problems = []
    if len(rails) != total:
        problems.append(
            f"Node {node}: publishes {len(rails)} RDMA rails ({RAIL_DEVICE_CLASS}), "
            f"expected {total}"
        )
    for root, names in sorted(want.items()):
        if found.get(root) != names:
            problems.append(
                f"Node {node}: rails on {root} are {sorted(found.get(root, set()))}, "
                f"expected {sorted(names)}"
            )
    return problems


def _gpu_problems(expected: Expected, node: str, slices: list[dict[str, Any]]) -> list[str]:
    gpus = [
        d
        for d in _node_devices(slices, node, GPU_DEVICE_CLASS)
        if _attribute(d, GPU_DEVICE_CLASS, "type") == "gpu"
    ]
    # The driver numbers GPUs in its own order, so count them per root instead of naming them.
    found = Counter(_attribute(g, GPU_DEVICE_CLASS, PCIE_ROOT) or "(no pcieRoot)" for g in gpus)
    want = {root.name: len(root.gpus) for root in expected.roots}
    problems = []
    if len(gpus) != sum(want.values()):
        problems.append(
            f"Node {node}: publishes {len(gpus)} GPUs ({GPU_DEVICE_CLASS}), "
            f"expected {sum(want.values())}"
        )
    for root, count in sorted(want.items()):
        if found.get(root, 0) != count:
            problems.append(f"Node {node}: {found.get(root, 0)} GPUs on {root}, expected {count}")
    return problems


def check(expected: Expected, snapshot: Snapshot) -> list[str]:
    """Everything that is missing or wrong, one readable line each; empty when healthy."""
    problems: list[str] = []
    classes = {c["metadata"]["name"] for c in snapshot.device_classes}
    problems += [
        f"DeviceClass {name}: missing" for name in expected.device_classes if name not in classes
    ]

    gpu_nodes = sorted(
        n["metadata"]["name"]
        for n in snapshot.nodes
        if (n["metadata"].get("labels") or {}).get(INSTANCE_TYPE_LABEL) == expected.shape
    )
    if len(gpu_nodes) < expected.nodes or not gpu_nodes:
        problems.append(
            f"{len(gpu_nodes)} of the stack's {expected.nodes} {expected.shape} nodes have joined "
            "the cluster"
        )
    for ds in expected.daemon_sets:
        key = f"{ds.namespace}/{ds.name}"
        problems += daemon_set_problems(
            ds.namespace,
            ds.name,
            snapshot.daemon_sets.get(key),
            snapshot.pods.get(key, []),
            max(len(gpu_nodes), expected.nodes),
        )
    for node in gpu_nodes:
        problems += _rail_problems(expected, node, snapshot.resource_slices)
        problems += _gpu_problems(expected, node, snapshot.resource_slices)

    want_ns = expected.namespace["metadata"]
    if snapshot.namespace is None:
        problems.append(f"Namespace {want_ns['name']}: missing")
    else:
        labels = snapshot.namespace["metadata"].get("labels") or {}
        for label, value in want_ns["labels"].items():
            if labels.get(label) != value:
                problems.append(
                    f"Namespace {want_ns['name']}: {label} is {labels.get(label)!r}, "
                    f"expected {value!r}"
                )

    want_cm = expected.tools
    name = f"{want_cm['metadata']['namespace']}/{want_cm['metadata']['name']}"
    if snapshot.config_map is None:
        problems.append(f"ConfigMap {name}: missing")
    else:
        data = snapshot.config_map.get("data") or {}
        for key, text in want_cm["data"].items():
            if data.get(key) != text:
                problems.append(f"ConfigMap {name}: {key} differs from the stack's")
    return problems


def read_snapshot(expected: Expected, api_client: Any) -> Snapshot:
    """Fetch the objects `check` needs; absent ones come back empty or None."""
    from kubernetes import client

    plain = api_client.sanitize_for_serialization
    core, dra = client.CoreV1Api(api_client), client.ResourceV1Api(api_client)
    snapshot = Snapshot(
        device_classes=plain(dra.list_device_class())["items"],
        nodes=plain(core.list_node())["items"],
        resource_slices=plain(dra.list_resource_slice())["items"],
        namespace=read_or_none(
            lambda: plain(core.read_namespace(expected.namespace["metadata"]["name"]))
        ),
        config_map=read_or_none(
            lambda: plain(
                core.read_namespaced_config_map(
                    expected.tools["metadata"]["name"], expected.tools["metadata"]["namespace"]
                )
            )
        ),
    )
    for ds in expected.daemon_sets:
        key = f"{ds.namespace}/{ds.name}"
        snapshot.daemon_sets[key], snapshot.pods[key] = daemon_set_and_pods(
            api_client, ds.namespace, ds.name, ds.selector
        )
    return snapshot


def kubeconfig_command(cfg: OkeDranetConfig, stack: str) -> str:
    """How a user writes a kubeconfig for this stack's cluster (OCI's documented command; the
    endpoint is private: run it where the endpoint is reachable)."""
    cloud = cfg.cloud_stack or stack
    return (
        f"oci ce cluster create-kubeconfig --cluster-id $(pulumi stack output clusterId -s {cloud})"
        f" --file ~/.kube/config --region {cfg.oci_region} --token-version 2.0.0"
        " --kube-endpoint PRIVATE_ENDPOINT"
    )
