"""Whether a DaemonSet is fully rolled out, with no pod stuck: the check every platform shares."""

from __future__ import annotations

from typing import Any

# Waiting reasons of a container that will not come up by itself.
STUCK_REASONS = {
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "ErrImagePull",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
}


def daemon_set_problems(
    namespace: str,
    name: str,
    daemon_set: dict[str, Any] | None,
    pods: list[dict[str, Any]],
    nodes: int | None = None,
) -> list[str]:
    """What keeps `namespace/name` from being rolled out; `nodes`: how many it must run on."""
    label = f"DaemonSet {namespace}/{name}"
    if daemon_set is None:
        return [f"{label}: missing"]
    problems = []
    status = daemon_set.get("status") or {}
    desired = status.get("desiredNumberScheduled", 0)
    if desired == 0:
        problems.append(f"{label}: scheduled on no node (are the GPU nodes up?)")
    elif nodes is not None and desired != nodes:
        problems.append(f"{label}: scheduled on {desired} of the {nodes} GPU nodes")
    for key, what in (
        ("updatedNumberScheduled", "updated"),
        ("numberReady", "ready"),
        ("numberAvailable", "available"),
    ):
        if status.get(key, 0) != desired:
            problems.append(f"{label}: {status.get(key, 0)} of {desired} pods {what}")
    generation = daemon_set["metadata"].get("generation", 0)
    if status.get("observedGeneration", 0) < generation:
        problems.append(f"{label}: the controller has not seen generation {generation} yet")

    for pod in pods:
        pod_name = pod["metadata"]["name"]
        pod_status = pod.get("status") or {}
        phase = pod_status.get("phase")
        if phase in ("Pending", "Failed"):
            problems.append(f"Pod {namespace}/{pod_name}: {phase}")
        statuses = pod_status.get("initContainerStatuses", []) + pod_status.get(
            "containerStatuses", []
        )
        for container in statuses:
            waiting = (container.get("state") or {}).get("waiting") or {}
            if waiting.get("reason") in STUCK_REASONS:
                problems.append(
                    f"Pod {namespace}/{pod_name}: container {container['name']} {waiting['reason']}"
                )
    return problems


def read_or_none(read, *args) -> Any:
    """`read(*args)` as a plain dict, or None where the object does not exist."""
    from kubernetes.client.exceptions import ApiException

    try:
        return read(*args)
    except ApiException as err:
        if err.status != 404:
            raise
        return None


def daemon_set_and_pods(api_client: Any, namespace: str, name: str, selector: dict) -> tuple:
    from kubernetes import client

    plain = api_client.sanitize_for_serialization
    daemon_set = read_or_none(
        lambda: plain(client.AppsV1Api(api_client).read_namespaced_daemon_set(name, namespace))
    )
    pods = client.CoreV1Api(api_client).list_namespaced_pod(
        namespace, label_selector=",".join(f"{k}={v}" for k, v in selector.items())
    )
    return daemon_set, plain(pods)["items"]
