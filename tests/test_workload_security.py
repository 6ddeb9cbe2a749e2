"""Secure by default: every object `make scan` gives checkov, the secure defaults of
the pods this package writes, the waivers (each with its reason), and the scan's own verdict."""

from __future__ import annotations

import copy
import functools
import json
import re
import stat
from pathlib import Path

import pytest

from gpu_fabric.workload_security import (
    CPU_LIMIT,
    SECCOMP,
    SIZES,
    SKIP,
    UPSTREAM_SOURCES,
    UPSTREAM_WAIVED,
    pod_reasons,
    pod_templates,
    secure_pod,
    secure_workload,
    waive,
    waivers,
    without_waivers,
)
from offline import engine, scan
from tests.stacks import APPLYING_STACKS
from tests.test_health import HEALTH_NAMESPACE

CHECK_ID = re.compile(r"^CKV2?_K8S_\d+$")


_planned_objects = functools.cache(scan.stack_objects)


@pytest.fixture(autouse=True)
def _objects_planned_once(monkeypatch):
    """`scan.stack_objects` plans a stack twice (as written and with every optional workload):
    the tests here, and the `scan.main` runs they make, share one planning of each stack (each
    caller gets its own copy)."""
    monkeypatch.setattr(scan, "stack_objects", lambda stack: copy.deepcopy(_planned_objects(stack)))


@pytest.fixture(scope="module", params=APPLYING_STACKS)
def scanned(request) -> tuple[str, dict[str, dict]]:
    return request.param, copy.deepcopy(_planned_objects(request.param))


def test_some_stack_applies_objects():
    assert APPLYING_STACKS


@pytest.mark.parametrize("stack", engine.stack_names())
def test_the_scan_covers_every_stack_that_applies_objects(stack):
    """Every stack file is scanned, whatever its name: one that applies in-cluster objects (not
    `layers: cloud`) gives the scan its objects, a cloud stack none."""
    assert bool(scan.stack_objects(stack)) == (stack in APPLYING_STACKS)


def test_the_scan_sees_the_optional_workloads_and_the_benchmark(scanned):
    stack, objects = scanned
    kinds = {(name.split("-")[0], obj["kind"]) for name, obj in objects.items()}
    assert ("bandwidth", "Namespace") in kinds or stack == "oke-dranet-fabric"
    assert ("bandwidth", "TrainJob") in kinds  # the run as a user's job
    optional = {
        "a3-prod": "Pod",  # the TCPX smoke test
        "oke-dranet-fabric": "MPIJob",
        "ack-lingjun-fabric": "Job",
    }
    if stack in optional:
        assert ("optional", optional[stack]) in kinds
    # A custom resource's pods are scanned as Pods, pointing back at it.
    for name, obj in objects.items():
        if obj["kind"] in scan.POD_TEMPLATE_HOLDERS:
            pods = [o for o in objects.values()
                    if o["metadata"].get("annotations", {}).get(scan.HOLDER) == name]  # fmt: skip
            assert len(pods) == len(list(pod_templates(obj["spec"])))
            assert all(waivers(p) == waivers(obj) for p in pods)


def _containers(spec: dict) -> list[dict]:
    return [*spec.get("initContainers", []), *spec.get("containers", [])]


def test_every_pod_this_package_writes_has_the_secure_defaults(scanned):
    stack, objects = scanned
    # (A custom resource's pods, made for checkov, are checked as part of it.)
    # The node health pods are node agents and a controller with an API identity, each checked
    # against its namespace's Pod Security level in tests/test_health.py.
    written = [o for o in objects.values() if o["kind"] != "DaemonSet" and list(pod_templates(o))
               and scan.HOLDER not in o["metadata"].get("annotations", {})
               and o["metadata"].get("namespace") != HEALTH_NAMESPACE]  # fmt: skip
    assert written
    for obj in written:
        what = f"{stack}: {obj['kind']} {obj['metadata']['name']}"
        if obj["kind"] != "ClusterTrainingRuntime":  # cluster-scoped: the TrainJob's namespace
            assert obj["metadata"]["namespace"] not in (None, "default"), what
        runtime = obj["kind"] == "ClusterTrainingRuntime"
        for _, template in pod_templates(obj):
            spec = template["spec"]
            assert spec["automountServiceAccountToken"] is False, what
            assert "securityContext" not in spec  # no seccomp profile: SECCOMP, waived
            assert waivers(obj)["CKV_K8S_31"] == SECCOMP
            for c in _containers(spec):
                if runtime:  # each TrainJob's own
                    limits = c.get("resources", {}).get("limits", {})
                    assert not {"cpu", "memory"} & set(limits), what
                    continue
                requests, limits = c["resources"]["requests"], c["resources"].get("limits", {})
                assert {"cpu", "memory"} <= set(requests), (what, c["name"])
                if "cpu" not in limits:
                    assert waivers(obj)["CKV_K8S_11"] == CPU_LIMIT, what
                if "memory" not in limits:
                    assert "CKV_K8S_13" in waivers(obj), what
                security = c["securityContext"]
                if not security.get("privileged"):
                    assert security["allowPrivilegeEscalation"] is False, (what, c["name"])
                    assert security["capabilities"]["drop"] in (["ALL"], ["NET_RAW"]), what
                if "@sha256:" not in c["image"]:
                    assert "CKV_K8S_43" in waivers(obj), (what, c["image"])


def test_upstream_daemon_sets_keep_their_shape_and_carry_their_waivers(scanned):
    _, objects = scanned
    for obj in (o for o in objects.values() if o["kind"] == "DaemonSet"):
        name = obj["metadata"]["name"]
        if obj["metadata"].get("namespace") == HEALTH_NAMESPACE:
            # DCGM's exporter, whose waivers name its own upstream (tests/test_health.py).
            assert all(len(reason) > 20 for reason in waivers(obj).values())
            continue
        checks = waivers(obj)
        assert set(checks) <= UPSTREAM_WAIVED[name]
        assert UPSTREAM_WAIVED[name] - set(checks) <= {"CKV_K8S_43"}  # a pinned digest
        assert all(UPSTREAM_SOURCES[name] in reason for reason in checks.values())
        # Nothing but annotations differs from what upstream runs: no pod field was touched.
        assert "automountServiceAccountToken" not in obj["spec"]["template"]["spec"]


def test_every_waiver_names_a_check_and_a_reason(scanned):
    _, objects = scanned
    for obj in objects.values():
        for check, reason in waivers(obj).items():
            assert CHECK_ID.match(check), check
            assert len(reason) > 20, (check, reason)


# --- the functions ---------------------------------------------------------------------------


def pod(**spec) -> dict:
    containers = [{"name": "c", "image": "r/i:1"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "n"},
            "spec": {"containers": containers, **spec}}  # fmt: skip


def test_secure_pod_keeps_what_the_spec_says():
    spec = {
        "containers": [
            {"name": "daemon", "image": "d", "securityContext": {"privileged": True}},
            {
                "name": "test",
                "image": "t",
                "resources": {"limits": {"memory": "1Gi"}},
                "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}},
            },  # fmt: skip
            {"name": "sshd", "image": "s"},
        ]
    }
    out = secure_pod(spec, {"daemon": "daemon"}, default_capabilities=["sshd"])
    daemon, test, sshd = out["containers"]
    assert daemon["securityContext"] == {"privileged": True}
    assert daemon["resources"] == SIZES["daemon"] and "cpu" not in SIZES["daemon"]["limits"]
    assert test["resources"]["limits"]["memory"] == "1Gi"  # kept
    assert test["securityContext"]["capabilities"] == {"add": ["IPC_LOCK"], "drop": ["ALL"]}
    assert sshd["securityContext"]["capabilities"] == {"drop": ["NET_RAW"]}
    assert spec["containers"][2] == {"name": "sshd", "image": "s"}  # a copy


def test_a_pods_reasons_follow_its_spec():
    plain = secure_pod(pod()["spec"])
    assert set(pod_reasons(plain)) == {
        *("CKV_K8S_8", "CKV_K8S_9", "CKV_K8S_11", "CKV_K8S_22", "CKV_K8S_23", "CKV_K8S_29"),
        *("CKV_K8S_31", "CKV_K8S_40", "CKV_K8S_43", "CKV2_K8S_6"),
    }
    bare = secure_pod(pod()["spec"], default_size="none")
    with pytest.raises(ValueError, match="requests cpu left unset needs the reason"):
        pod_reasons(bare)
    pinned = secure_pod({"containers": [{"name": "c", "image": "r/i:1@sha256:" + "a" * 64}]})
    assert "CKV_K8S_43" not in pod_reasons(pinned)
    host = secure_pod(pod(hostNetwork=True)["spec"])
    with pytest.raises(ValueError, match="host-network pod needs the reason"):
        pod_reasons(host)
    assert pod_reasons(host, host_network="because")["CKV_K8S_19"] == "because"
    added = {"capabilities": {"add": ["SYS_ADMIN"]}}
    odd = secure_pod({"containers": [{"name": "c", "image": "i", "securityContext": added}]})
    with pytest.raises(ValueError, match="SYS_ADMIN"):
        pod_reasons(odd)


def test_a_job_waives_no_check_checkov_does_not_run_on_it():
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "n"},
           "spec": {"template": {"spec": pod()["spec"]}}}  # fmt: skip
    assert not {"CKV_K8S_8", "CKV_K8S_9", "CKV2_K8S_6"} & set(waivers(secure_workload(job)))
    job["spec"]["template"]["metadata"] = {"labels": {"app": "j"}}
    assert "CKV2_K8S_6" in waivers(secure_workload(job))


def test_waivers_are_annotations_made_once():
    waived = waive(pod(), {"CKV_K8S_9": "b", "CKV_K8S_10": "a"})
    annotations = waived["metadata"]["annotations"]
    assert annotations == {f"{SKIP}1": "CKV_K8S_9=b", f"{SKIP}2": "CKV_K8S_10=a"}
    assert without_waivers(waived) == pod()
    with pytest.raises(ValueError, match="already waived"):
        waive(waived, {"CKV_K8S_8": "c"})


# --- the scan's verdict, with a stand-in checkov ------------------------------------------------


def fake_checkov(tmp_path: Path, failing: list[tuple[str, str]]) -> Path:
    """A `checkov` that reports `failing` (file suffix, check) as failed, the rest as passed."""
    script = tmp_path / "checkov"
    report = {
        "results": {
            "failed_checks": [
                {"check_id": check, "check_name": "n", "file_path": f"/{suffix}"}
                for suffix, check in failing
            ],
            "passed_checks": [],
            "skipped_checks": [],
        }
    }
    script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{json.dumps(report)}\nEOF\nexit 1\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_scan_fails_on_an_unwaived_finding_and_on_an_unneeded_waiver(tmp_path, capsys):
    stack = "ack-lingjun-fabric"
    job = next(n for n in scan.stack_objects(stack) if n.startswith("optional-job"))
    out = tmp_path / "out"
    # Every waiver of the Job is needed (it fails each without them): only the failure counts.
    needed = [(f"{stack}/{job}", c) for c in waivers(scan.stack_objects(stack)[job])]
    checkov = fake_checkov(tmp_path, needed)
    assert scan.main([stack, "--checkov", str(checkov), "--out", str(out)]) == 1
    assert "FAILED" in capsys.readouterr().out  # the stand-in fails them in both runs
    # Nothing fails, so every waiver is unneeded.
    checkov = fake_checkov(tmp_path, [])
    assert scan.main([stack, "--checkov", str(checkov), "--out", str(out)]) == 1
    assert f"UNNEEDED WAIVER {stack}/{job}: CKV_K8S_19" in capsys.readouterr().out
    # No checkov: exit 2.
    assert scan.main([stack, "--checkov", str(tmp_path / "none"), "--out", str(out)]) == 2


def test_scan_passes_when_every_finding_is_waived_and_needed(tmp_path, capsys, monkeypatch):
    stack = "ack-lingjun-fabric"
    objects = scan.stack_objects(stack)
    needed = [(f"{stack}/{name}", c) for name, obj in objects.items() for c in waivers(obj)]
    reports = iter([{"results": {"passed_checks": [], "skipped_checks": [], "failed_checks": []}},
                    {"results": {"passed_checks": [], "skipped_checks": [], "failed_checks": [
                        {"check_id": c, "check_name": "n", "file_path": f"/{f}"}
                        for f, c in needed]}}])  # fmt: skip
    monkeypatch.setattr(scan, "run_checkov", lambda checkov, folder: next(reports))
    assert scan.main([stack, "--out", str(tmp_path)]) == 0
    assert "checkov: 0 unwaived" in capsys.readouterr().out


def test_no_requests_waiver_where_checkov_gives_no_result():
    """checkov's CPURequests/MemoryRequests give no result for `resources` without `requests`
    (a DRA claim only), and `make scan` refuses a waiver of a check that does not fail."""
    from gpu_fabric.workload_security import pod_reasons

    claim_only = {
        "containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "x"}]}}]
    }
    reasons = {"CKV_K8S_10": "r", "CKV_K8S_12": "r", "CKV_K8S_13": "r"}
    found = pod_reasons(claim_only, reasons=reasons)
    assert not {"CKV_K8S_10", "CKV_K8S_12"} & set(found)
    assert {"CKV_K8S_11", "CKV_K8S_13"} <= set(found)  # the limits checks do fail
    empty = {"containers": [{"name": "c", "image": "i", "resources": {"requests": {}}}]}
    assert {"CKV_K8S_10", "CKV_K8S_12"} <= set(pod_reasons(empty, reasons=reasons))
