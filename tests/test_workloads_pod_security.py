"""The Pod Security checks the training namespace's level is held to (gpu_fabric/workloads/
pod_security.py), each against the rule of kubernetes/pod-security-admission it follows."""

from __future__ import annotations

import pytest

from gpu_fabric.workloads.pod_security import is_stricter, needed_level

RESTRICTED_CONTAINER = {
    "name": "c",
    "image": "i",
    "securityContext": {
        "allowPrivilegeEscalation": False,
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
        "capabilities": {"drop": ["ALL"]},
    },
}


def _pod(**changes) -> dict:
    container = {**RESTRICTED_CONTAINER, **changes.pop("container", {})}
    return {"containers": [container], "volumes": [{"name": "v", "emptyDir": {}}], **changes}


def test_a_pod_that_follows_every_rule_passes_restricted():
    assert needed_level(_pod()) == ("restricted", [])


@pytest.mark.parametrize(
    "pod, says",
    [
        (_pod(hostNetwork=True), "hostNetwork: true"),
        (_pod(hostPID=True), "hostPID: true"),
        (_pod(volumes=[{"name": "lib", "hostPath": {"path": "/lib"}}]), "hostPath volumes (lib)"),
        (_pod(container={"securityContext": {"privileged": True}}), "privileged container c"),
        (
            _pod(container={"securityContext": {"capabilities": {"add": ["IPC_LOCK", "CHOWN"]}}}),
            "capabilities IPC_LOCK of container c",
        ),
        (_pod(container={"ports": [{"containerPort": 80, "hostPort": 80}]}), "host ports"),
    ],
)
def test_what_baseline_forbids_needs_privileged(pod, says):
    level, why = needed_level(pod)
    assert level == "privileged"
    assert any(says in w for w in why), why


@pytest.mark.parametrize(
    "pod, says",
    [
        (_pod(volumes=[{"name": "n", "nfs": {"server": "s", "path": "/"}}]), "of type nfs"),
        (_pod(container={"securityContext": {}}), "may escalate privileges"),
        (
            _pod(
                container={
                    "securityContext": {
                        **RESTRICTED_CONTAINER["securityContext"],
                        "runAsNonRoot": False,
                    }
                }
            ),
            "may run as root",
        ),
        (
            _pod(
                container={
                    "securityContext": {
                        **RESTRICTED_CONTAINER["securityContext"],
                        "seccompProfile": {"type": "Unconfined"},
                    }
                }
            ),
            "no RuntimeDefault seccomp profile",
        ),
        (
            _pod(
                container={
                    "securityContext": {
                        **RESTRICTED_CONTAINER["securityContext"],
                        "capabilities": {"drop": ["ALL"], "add": ["CHOWN"]},
                    }
                }
            ),
            "adds capabilities",
        ),
    ],
)
def test_what_only_restricted_forbids_needs_baseline(pod, says):
    level, why = needed_level(pod)
    assert level == "baseline"
    assert any(says in w for w in why), why


def test_levels_order_from_the_most_permissive():
    assert is_stricter("restricted", "baseline") and is_stricter("baseline", "privileged")
    assert not is_stricter("privileged", "baseline")
