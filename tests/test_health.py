"""Node health (gpu_fabric/health/): what every stack's plan holds, the rules of its keys, and the
taint that keeps a new job off a node whose check failed and lets it back once the check passes."""

from __future__ import annotations

import copy
import json
import re
import subprocess
from pathlib import Path

import pytest

from gpu_fabric import yaml_files
from gpu_fabric.catalog import catalog
from gpu_fabric.health import exporters, pre_job_check, taint_controller
from gpu_fabric.health.alerts import rule_groups
from gpu_fabric.health.mirror import mirrored
from gpu_fabric.health.node_checks import CHECKS, SCRIPTS, checks_for
from gpu_fabric.health.taint_failed_nodes import failed_checks, patch_of, wanted_taints
from gpu_fabric.registry import spec_of
from gpu_fabric.workload_security import pod_templates
from gpu_fabric.workloads.pod_security import LEVELS, needed_level
from offline.engine import manifest
from tests.conftest import assert_single_rule, planned, run_stack
from tests.stacks import APPLYING_STACKS, platform_of, stack_of_machine, stacks_on
from tests.vendored import blobs, git_blob_id

OUTPUTS = Path(__file__).with_name("health_outputs")
NPD_CHART = catalog().health.node_problem_detector.chart
PROMETHEUS_CHART = catalog().health.kube_prometheus_stack.chart
HEALTH_NAMESPACE = catalog().health.namespace
TAINT_CONTROLLER_KINDS = {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap"}
GKE_HEALTH_KINDS = {"Namespace", *TAINT_CONTROLLER_KINDS, "Deployment", "PodMonitoring"}
GKE_HEALTH_KINDS |= {"ClusterRules"}
"""What node health adds to a GKE stack's objects (managed Prometheus scrapes and evaluates)."""
OWN_PROMETHEUS_HEALTH_KINDS = {"Namespace", *TAINT_CONTROLLER_KINDS, "Deployment", "DaemonSet"}
OWN_PROMETHEUS_HEALTH_KINDS |= {"Service", "ServiceMonitor", "PrometheusRule"}
"""What it adds where the stack installs kube-prometheus-stack (OKE, ACK): DCGM's exporter, its
Service and ServiceMonitor, the rules, and the dashboard's ConfigMap."""


def _health_objects(plan) -> list[dict]:
    return [
        manifest(r)
        for r in plan.kubernetes_objects()
        if "-health-" in r.name and r.type.startswith("kubernetes:")
    ]


def _release(plan, chart: str) -> dict:
    (release,) = [r for r in plan.helm_releases() if r.inputs["chart"] == chart]
    return release.inputs


# --- what every stack holds ------------------------------------------------------------------


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_every_stack_watches_its_gpu_nodes(stack):
    from tests.test_manifests import validate  # it imports this module's kinds

    plan = planned(stack)
    objects = _health_objects(plan)
    package = spec_of(platform_of(stack)).package
    kinds = {o["kind"] for o in objects}
    assert kinds == (GKE_HEALTH_KINDS if package == "gke" else OWN_PROMETHEUS_HEALTH_KINDS)
    for obj in objects:
        validate(obj)
    values = _release(plan, NPD_CHART)["values"]
    definitions = values["settings"]["custom_monitor_definitions"]
    rdma = package != "gke" or "RdmaLink" in json.dumps(definitions)
    # The checks that apply, their scripts shipped as they are in the package.
    expected = {c.script for c in checks_for(rdma=rdma) if c.script}
    assert {name for name in definitions if name.endswith(".sh")} == expected
    for check in checks_for(rdma=rdma):
        if check.script:
            assert definitions[check.script] == (SCRIPTS / check.script).read_text()
    # On the GPU nodes only, every taint tolerated (the taint controller's too).
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"]
    assert values["tolerations"] == [{"operator": "Exists"}]
    env = {e["name"]: e["value"] for e in values["env"]}
    assert int(env["EXPECTED_GPUS"]) > 0
    # Where the stack has its own Prometheus, the chart's ServiceMonitor scrapes the detector.
    assert values["metrics"]["serviceMonitor"]["enabled"] is (package != "gke")
    if package != "gke":
        assert _release(plan, PROMETHEUS_CHART)["version"] == (
            catalog().health.kube_prometheus_stack.version
        )


@pytest.mark.parametrize("stack", stacks_on("gke"))
def test_gke_checks_run_the_driver_gke_installs(stack):
    values = _release(planned(stack), NPD_CHART)["values"]
    env = {e["name"]: e["value"] for e in values["env"]}
    assert env["NVIDIA_SMI"] == "/usr/local/nvidia/bin/nvidia-smi"
    volumes = {v["name"]: v["hostPath"]["path"] for v in values["extraVolumes"]}
    assert volumes == {"host-sys": "/sys", "nvidia-driver": "/home/kubernetes/bin/nvidia"}


@pytest.mark.parametrize("stack", [*stacks_on("oke"), *stacks_on("ack")])
def test_oke_and_ack_checks_run_the_hosts_nvidia_smi(stack):
    plan = planned(stack)
    values = _release(plan, NPD_CHART)["values"]
    env = {e["name"]: e["value"] for e in values["env"]}
    assert env["NVIDIA_SMI"] == "chroot /host nvidia-smi"
    (exporter,) = [o for o in _health_objects(plan) if o["kind"] == "DaemonSet"]
    container = exporter["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == catalog().health.dcgm_exporter
    dra = {"name": "KUBERNETES_ENABLE_DRA", "value": "true"}
    # OKE's GPUs are DRA claims: the exporter attributes them through the DRA API.
    assert (dra in container["env"]) is (spec_of(platform_of(stack)).package == "oke")
    # The dashboard, where the stack's Grafana loads it.
    (dashboard,) = [
        o
        for o in _health_objects(plan)
        if o["kind"] == "ConfigMap" and "grafana_dashboard" in (o["metadata"].get("labels") or {})
    ]
    assert dashboard["metadata"]["namespace"] == catalog().health.kube_prometheus_stack.namespace
    panels = json.loads(next(iter(dashboard["data"].values())))["panels"]
    assert {"GPUs per node (DCGM)", "Failed node checks", "RDMA ports not ACTIVE"} <= {
        p["title"] for p in panels
    }


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_every_check_has_its_alert_and_a_stale_check_alerts_too(stack):
    objects = _health_objects(planned(stack))
    (rules,) = [o for o in objects if o["kind"] in ("ClusterRules", "PrometheusRule")]
    alerts = {r["alert"]: r for g in rules["spec"]["groups"] for r in g["rules"]}
    values = _release(planned(stack), NPD_CHART)["values"]
    checked = set(re.findall(r'"type": "(\w+)"', json.dumps(values["settings"])))
    for check in CHECKS:
        if check.condition in checked:
            assert alerts[f"{check.condition}Failed"]["expr"] == (
                f'max by (node) (problem_gauge{{type="{check.condition}"}}) > 0'
            )
    assert "NodeChecksDown" in alerts
    assert all(r["labels"]["severity"] in ("critical", "warning") for r in alerts.values())


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_the_health_pods_pass_their_namespaces_pod_security_level(stack):
    objects = _health_objects(planned(stack))
    (namespace,) = [o for o in objects if o["kind"] == "Namespace"]
    level = namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"]
    for obj in objects:
        if obj["kind"] in ("Deployment", "DaemonSet"):
            needed, _ = needed_level(obj["spec"]["template"]["spec"])
            assert LEVELS.index(level) <= LEVELS.index(needed), obj["metadata"]["name"]
    # The taint controller, the one pod with an API identity, passes Restricted.
    (controller,) = [o for o in objects if o["kind"] == "Deployment"]
    assert needed_level(controller["spec"]["template"]["spec"]) == ("restricted", [])


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_the_taint_controller_may_only_read_and_patch_nodes(stack):
    objects = _health_objects(planned(stack))
    (role,) = [o for o in objects if o["kind"] == "ClusterRole"]
    assert role["rules"] == [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["list", "patch"]}
    ]
    (controller,) = [o for o in objects if o["kind"] == "Deployment"]
    pod = controller["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["TAINT_KEY"] == taint_controller.TAINT_KEY
    (script,) = [
        o
        for o in objects
        if o["kind"] == "ConfigMap" and o["metadata"]["name"] == (taint_controller.NAME)
    ]
    assert script["data"] == {taint_controller.SCRIPT: taint_controller.script_text()}


# --- a failed node takes no new job, and takes them again once its checks pass ----------------


def _conditions(*statuses: tuple[str, str]) -> list[dict]:
    """A node's conditions from oci-hpc-oke's documented example of what node-problem-detector
    writes (tests/health_outputs/npd-node-conditions.txt), each given its status here."""
    rows = {}
    for line in (OUTPUTS / "npd-node-conditions.txt").read_text().splitlines():
        kind, status, reason, message = re.split(r"\s{2,}", line.strip(), maxsplit=3)
        rows[kind] = {"type": kind, "status": status, "reason": reason, "message": message}
    out = []
    for kind, status in statuses:
        condition = dict(rows[kind])
        condition["status"] = status
        condition["reason"] = f"{kind}HasIssues" if status == "True" else f"{kind}HasNoIssues"
        out.append(condition)
    return out


def _tolerates(tolerations: list[dict], taint: dict) -> bool:
    """Kubernetes' toleration matching (Kubernetes docs, "Taints and Tolerations"): an empty key
    with `Exists` matches every taint; otherwise the keys match, the effects match (or the
    toleration gives none), and the value matches unless the operator is `Exists`."""
    for t in tolerations:
        if t.get("effect") and t["effect"] != taint["effect"]:
            continue
        if t.get("operator") == "Exists":
            if not t.get("key") or t["key"] == taint["key"]:
                return True
        elif t.get("key") == taint["key"] and t.get("value", "") == taint.get("value", ""):
            return True
    return False


def _schedulable(pod_tolerations: list[dict], node: dict) -> bool:
    """Whether the scheduler may place a new pod there, as far as taints go."""
    return all(
        _tolerates(pod_tolerations, taint)
        for taint in node["spec"].get("taints", [])
        if taint["effect"] in ("NoSchedule", "NoExecute")
    )


def _runtime_pod_tolerations(plan) -> list[dict]:
    """What a TrainJob's pods on the fabric's runtime tolerate: the runtime's pod template's, and
    the flavor's Kueue adds when it admits the job."""
    (runtime,) = [
        manifest(r) for r in plan.kubernetes_objects() if r.type.endswith(":ClusterTrainingRuntime")
    ]
    (job,) = runtime["spec"]["template"]["spec"]["replicatedJobs"]
    tolerations = list(job["template"]["spec"]["template"]["spec"].get("tolerations", []))
    for flavor in (
        manifest(r) for r in plan.kubernetes_objects() if r.type.endswith(":ResourceFlavor")
    ):
        tolerations += flavor["spec"].get("tolerations", [])
    return tolerations


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_a_node_whose_check_fails_takes_no_new_job_until_the_check_passes(stack):
    plan = planned(stack)
    tolerations = _runtime_pod_tolerations(plan)
    checks = {c.condition for c in CHECKS}
    key = taint_controller.TAINT_KEY
    gpu_taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    node = {
        "metadata": {"name": "gpu-node-1", "resourceVersion": "41"},
        "spec": {"taints": [gpu_taint]},
        "status": {"conditions": _conditions(("GpuCount", "False"), ("RdmaLink", "False"))},
    }
    flavor_taints = [
        {"key": t["key"], "value": t.get("value", "x"), "effect": t.get("effect", "NoSchedule")}
        for t in tolerations
        if t.get("key")
    ]
    node["spec"]["taints"] = flavor_taints or [gpu_taint]
    assert _schedulable(tolerations, node)
    assert wanted_taints(node, checks, key) is None  # healthy: nothing to change

    # RdmaLink fails: the controller taints the node, and the runtime's pods do not tolerate it.
    node["status"]["conditions"] = _conditions(("GpuCount", "False"), ("RdmaLink", "True"))
    taints = wanted_taints(node, checks, key)
    assert taints is not None
    assert taints[-1] == {"key": key, "value": "RdmaLink", "effect": "NoSchedule"}
    assert taints[:-1] == node["spec"]["taints"]  # the others' taints kept
    assert patch_of(node, taints) == [
        {"op": "test", "path": "/metadata/resourceVersion", "value": "41"},
        {"op": "add", "path": "/spec/taints", "value": taints},
    ]
    tainted = copy.deepcopy(node)
    tainted["spec"]["taints"] = taints
    assert not _schedulable(tolerations, tainted)

    # An unknown verdict changes nothing: the taint stays until the check says False.
    tainted["status"]["conditions"] = _conditions(("GpuEcc", "Unknown"), ("RdmaLink", "True"))
    assert wanted_taints(tainted, checks, key) is None
    # The check passes again: the taint comes off, and the node takes new jobs.
    tainted["status"]["conditions"] = _conditions(("GpuEcc", "Unknown"), ("RdmaLink", "False"))
    untainted = wanted_taints(tainted, checks, key)
    assert untainted == node["spec"]["taints"]
    tainted["spec"]["taints"] = untainted
    assert _schedulable(tolerations, tainted)


def test_the_taint_names_every_failed_check_within_a_label_value():
    node = {"status": {"conditions": _conditions(("RdmaLink", "True"), ("GpuCount", "True"))}}
    checks = {c.condition for c in CHECKS}
    assert failed_checks(node, checks) == ["GpuCount", "RdmaLink"]
    (taint,) = wanted_taints(node, checks, "k") or []
    assert taint["value"] == "GpuCount.RdmaLink"
    assert re.match(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$", taint["value"])


# --- the keys' rules ----------------------------------------------------------------------------


@pytest.mark.parametrize("package", ["gke", "oke", "ack"])
def test_only_the_prometheus_a_platform_has_is_taken(package):
    stack = stacks_on(package)[0]
    refused = {"gke": "stack", "oke": "managed", "ack": "managed"}[package]
    assert_single_rule(
        {"gpu-fabric:health": {"prometheus": refused}},
        "gpu-fabric:health.prometheus",
        refused,
        "has no",
        stack,
    )


def test_a_key_health_off_would_ignore_is_refused():
    stack = stacks_on("gke")[0]
    assert_single_rule(
        {"gpu-fabric:health": {"enabled": False, "taintFailedNodes": False}},
        "gpu-fabric:health.taintFailedNodes",
        False,
        "has no effect with gpu-fabric:health.enabled false",
        stack,
    )


@pytest.mark.parametrize("package", ["gke", "oke", "ack"])
def test_health_off_adds_nothing(package):
    stack = stacks_on(package)[0]
    plan = run_stack({"gpu-fabric:health": {"enabled": False}}, stack=stack)
    assert not [r for r in plan.resources if r.type == "gpu-fabric:health:NodeHealth"]
    assert not [r for r in plan.helm_releases() if r.inputs["chart"] == NPD_CHART]


def test_an_external_prometheus_gets_the_exporter_and_rules_but_no_stack():
    stack = stacks_on("oke")[0]
    plan = run_stack({"gpu-fabric:health": {"prometheus": "external"}}, stack=stack)
    kinds = {o["kind"] for o in _health_objects(plan)}
    assert {"DaemonSet", "ServiceMonitor", "PrometheusRule"} <= kinds
    assert not [r for r in plan.helm_releases() if r.inputs["chart"] == PROMETHEUS_CHART]


def test_no_taint_controller_when_asked():
    stack = stacks_on("gke")[0]
    plan = run_stack({"gpu-fabric:health": {"taintFailedNodes": False}}, stack=stack)
    assert "Deployment" not in {o["kind"] for o in _health_objects(plan)}


# --- the vendored exporter ----------------------------------------------------------------------


def test_the_vendored_exporter_is_upstreams_byte_for_byte():
    directory = Path(exporters.UPSTREAM)  # type: ignore[arg-type]
    assert set(directory.glob("*.yaml")) == set(blobs(directory))
    for path, blob in blobs(directory).items():
        assert git_blob_id(path.read_bytes()) == blob, path


def test_the_exporter_is_upstreams_but_for_namespace_image_placement_and_dra():
    objects = exporters.dcgm_exporter("ns", "registry.example/dcgm:1", [{"a": "b"}], dra=True)
    upstream = yaml_files.load_all((exporters.UPSTREAM / "dcgm-exporter.yaml").read_text())
    (daemon_set,) = [o for o in objects if o["kind"] == "DaemonSet"]
    (original,) = [o for o in upstream if o["kind"] == "DaemonSet"]
    ours, theirs = daemon_set["spec"]["template"]["spec"], original["spec"]["template"]["spec"]
    assert {
        k: v for k, v in ours.items() if k not in ("affinity", "tolerations", "containers")
    } == ({k: v for k, v in theirs.items() if k != "containers"})
    assert ours["containers"][0]["securityContext"] == theirs["containers"][0]["securityContext"]
    assert ours["containers"][0]["env"][-1] == {"name": "KUBERNETES_ENABLE_DRA", "value": "true"}


# --- the runtime's pre-job GPU check ------------------------------------------------------------


def _runtime_pod(plan) -> dict:
    (runtime,) = [
        manifest(r) for r in plan.kubernetes_objects() if r.type.endswith(":ClusterTrainingRuntime")
    ]
    (job,) = runtime["spec"]["template"]["spec"]["replicatedJobs"]
    return job["template"]["spec"]["template"]


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_every_runtime_checks_its_nodes_gpus_first_with_the_training_containers_devices(stack):
    plan = run_stack({"gpu-fabric:health": {"preJobCheck": True}}, stack=stack)
    pod = _runtime_pod(plan)["spec"]
    check = pod["initContainers"][0]
    (node,) = [c for c in pod["containers"] if c["name"] == "node"]
    assert check["name"] == pre_job_check.NAME
    assert check["image"] == node["image"]

    # The same GPUs (device-plugin limits, or the DRA claims that hold them), so the device
    # plugin or DRA driver gives it the driver's tools; no privilege of its own.
    def gpus(container: dict) -> object:
        return container["resources"].get("limits", {}).get("nvidia.com/gpu")

    assert gpus(check) == gpus(node)
    # DRA claims of the GPUs (OKE) too; A4X's NVLink channel is the training container's alone.
    claims = [c["name"] for c in check["resources"].get("claims", [])]
    assert set(claims) <= {c["name"] for c in node["resources"].get("claims", [])}
    assert gpus(check) or claims
    assert not check["securityContext"].get("privileged")
    env = {e["name"]: e["value"] for e in check["env"]}
    assert int(env["EXPECTED_GPUS"]) >= 1


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_no_pre_job_check_unless_asked(stack):
    pod = _runtime_pod(planned(stack))
    assert pre_job_check.NAME not in [c["name"] for c in pod["spec"].get("initContainers", [])]


def _run_pre_job_check(tmp_path: Path, prints: str, exits: int = 0, smi: bool = True):
    fake = tmp_path / "nvidia-smi"
    (tmp_path / "output.txt").write_text(prints)
    fake.write_text(f"#!/bin/sh\ncat {tmp_path / 'output.txt'}\nexit {exits}\n")
    fake.chmod(0o755)
    container = pre_job_check.gpu_check_container(
        {"image": "i"}, 8, str(fake) if smi else str(tmp_path / "absent")
    )
    env = {"PATH": "/usr/bin:/bin"} | {e["name"]: e["value"] for e in container["env"]}
    return subprocess.run(
        container["command"], env=env, capture_output=True, text=True, check=False
    )


def test_the_pre_job_check_fails_the_pod_on_a_bad_node_only(tmp_path):
    healthy = (OUTPUTS / "nvidia-smi-L-8xH100-healthy.txt").read_text()
    lost = (OUTPUTS / "nvidia-smi-L-device-handle-error.txt").read_text()
    # nvidia-smi -L and the ECC query both read the fake's output: a healthy listing has no
    # numeric ECC value, so only the count is judged here; the ECC check has its own tests.
    passed = _run_pre_job_check(tmp_path, healthy)
    assert passed.stdout.splitlines()[0] == "nvidia-smi lists all 8 GPUs"
    failed = _run_pre_job_check(tmp_path, lost, exits=15)
    assert failed.returncode == 1
    assert "nvidia-smi lists 0 of 8 GPUs" in failed.stdout
    missing = _run_pre_job_check(tmp_path, "", smi=False)
    assert missing.returncode == 0
    assert "could not check; starting anyway" in missing.stdout


# --- where alerts go ----------------------------------------------------------------------------

ROUTES = {
    "route": {"receiver": "oncall"},
    "receivers": [{"name": "oncall", "webhook_configs": [{"url": "https://hooks.example/x1"}]}],
}


def test_gke_routes_alerts_through_its_managed_alertmanager_as_a_secret():
    stack = stacks_on("gke")[0]
    plan = run_stack({"gpu-fabric:health": {"alertmanagerConfig": ROUTES}}, stack=stack)
    (secret,) = [r for r in plan.of_type("kubernetes:core/v1:Secret")]
    assert secret.inputs["metadata"] == {"name": "alertmanager", "namespace": "gmp-public"}
    assert secret.secret_inputs == ["stringData"]
    # GKE's namespace, not ours: it waits for nothing of node health.
    (namespace,) = [n for n in plan.of_type("kubernetes:core/v1:Namespace") if "-health-" in n.name]
    assert not plan.depends_on(secret, namespace)
    assert yaml_files.load(secret.inputs["stringData"]["alertmanager.yaml"]) == ROUTES


def test_the_stacks_alertmanager_takes_the_routes_as_a_secret():
    stack = stacks_on("oke")[0]
    plan = run_stack({"gpu-fabric:health": {"alertmanagerConfig": ROUTES}}, stack=stack)
    (release,) = [r for r in plan.helm_releases() if r.inputs["chart"] == PROMETHEUS_CHART]
    assert release.secret_inputs == ["values"]
    assert release.inputs["values"]["alertmanager"]["config"] == ROUTES


def test_an_alertmanager_configuration_needs_its_route_and_receivers():
    stack = stacks_on("gke")[0]
    assert_single_rule(
        {"gpu-fabric:health": {"alertmanagerConfig": {"receivers": []}}},
        "gpu-fabric:health.alertmanagerConfig",
        None,
        "needs route",
        stack,
    )


def test_an_external_prometheus_keeps_its_own_alertmanager_configuration():
    stack = stacks_on("oke")[0]
    assert_single_rule(
        {"gpu-fabric:health": {"prometheus": "external", "alertmanagerConfig": ROUTES}},
        "gpu-fabric:health.alertmanagerConfig",
        None,
        "keeps its own configuration",
        stack,
    )


def test_the_docs_name_every_check_and_alert():
    docs = (Path(__file__).parents[1] / "docs" / "health.md").read_text()
    health: dict = {"rdma": True, "gpus_per_node": 8}
    alerts = [
        r["alert"] for g in rule_groups(health, dcgm=True, node_exporter=True) for r in g["rules"]
    ]  # type: ignore[arg-type]
    for name in [*(f"`{c.condition}`" for c in CHECKS), *(f"`{a}`" for a in alerts)]:
        assert name in docs, name


def test_gke_runs_the_dcgm_exporter_itself_where_a_pools_driver_is_a_bundles():
    stack = stack_of_machine()["a4x-highgpu-4g"]
    plan = run_stack({"gpu-fabric:gpuPool.driverInstall": "bundle"}, stack=stack)
    objects = _health_objects(plan)
    (exporter,) = [o for o in objects if o["kind"] == "DaemonSet"]
    container = exporter["spec"]["template"]["spec"]["containers"][0]
    assert container["securityContext"]["privileged"] is True
    assert "allowPrivilegeEscalation" not in container["securityContext"]  # refused with it
    assert {"name": "LD_LIBRARY_PATH", "value": "/usr/local/nvidia/lib64"} in container["env"]
    volumes = exporter["spec"]["template"]["spec"]["volumes"]
    assert {
        "name": "nvidia-driver",
        "hostPath": {"path": "/home/kubernetes/bin/nvidia", "type": "Directory"},
    } in volumes
    monitored = {o["metadata"]["name"] for o in objects if o["kind"] == "PodMonitoring"}
    assert monitored == {"node-problem-detector", "dcgm-exporter"}
    assert "ServiceMonitor" not in {o["kind"] for o in objects}
    (rules,) = [o for o in objects if o["kind"] == "ClusterRules"]
    assert "GpusMissing" in {r["alert"] for g in rules["spec"]["groups"] for r in g["rules"]}
    from tests.test_manifests import validate  # it imports this module's kinds

    for obj in objects:
        validate(obj)


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_the_detectors_release_is_not_awaited_but_its_prometheus_is(stack):
    plan = planned(stack)
    assert _release(plan, NPD_CHART)["skipAwait"] is True
    for release in plan.helm_releases():
        if release.inputs["chart"] == PROMETHEUS_CHART:
            assert not release.inputs.get("skipAwait")


# --- a registry mirror --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("image", "pulled"),
    [
        (
            "registry.k8s.io/node-problem-detector/node-problem-detector",
            "m.example/mirror/node-problem-detector/node-problem-detector",
        ),
        (
            "nvcr.io/nvidia/k8s/dcgm-exporter:4.5.3-4.8.2-distroless",
            "m.example/mirror/nvidia/k8s/dcgm-exporter:4.5.3-4.8.2-distroless",
        ),
        ("python:3.13-slim", "m.example/mirror/library/python:3.13-slim"),
        ("grafana/grafana:12.0.0", "m.example/mirror/grafana/grafana:12.0.0"),
        ("localhost:5000/x:1", "m.example/mirror/x:1"),
    ],
)
def test_a_mirror_replaces_the_registry_and_keeps_path_and_tag(image, pulled):
    assert mirrored(image, "m.example/mirror") == pulled
    assert mirrored(image, None) == image


@pytest.mark.parametrize("package", ["gke", "oke"])
def test_every_health_image_comes_from_the_mirror_when_given(package):
    stack = stacks_on(package)[0]
    plan = run_stack({"gpu-fabric:health": {"imageRegistry": "m.example/mirror"}}, stack=stack)
    assert _release(plan, NPD_CHART)["values"]["image"] == {
        "repository": "m.example/mirror/node-problem-detector/node-problem-detector"
    }
    for obj in _health_objects(plan):
        for _, template in pod_templates(obj):
            for container in template["spec"]["containers"]:
                assert container["image"].startswith("m.example/mirror/"), container["image"]
    if package != "gke":
        values = _release(plan, PROMETHEUS_CHART)["values"]
        assert values["global"] == {"imageRegistry": "m.example/mirror"}


def test_a_mirror_is_a_registry_not_an_image():
    stack = stacks_on("gke")[0]
    assert_single_rule(
        {"gpu-fabric:health": {"imageRegistry": "https://m.example/mirror"}},
        "gpu-fabric:health.imageRegistry",
        "https://m.example/mirror",
        "not a registry",
        stack,
    )


def test_gke_routes_alerts_only_where_managed_prometheus_runs():
    stack = stacks_on("gke")[0]
    assert_single_rule(
        {
            "gpu-fabric:health": {"alertmanagerConfig": ROUTES},
            "gpu-fabric:gke.monitoring": {"managedPrometheus": False, "dcgm": False},
        },
        "gpu-fabric:health.alertmanagerConfig",
        None,
        "managed Alertmanager runs with managed Prometheus",
        stack,
    )
