"""`python -m verify STACK` (what `make verify STACK=...` runs): check a deployed GPU fabric.

Reads the cluster with the official `kubernetes` client. The kubeconfig comes from `--kubeconfig`,
else from the stack's `kubeconfig` output (`pulumi stack output`, when the Pulumi CLI is on PATH),
else from the current context (KUBECONFIG or ~/.kube/config). Exits 0 when the fabric is healthy,
1 with a list of what is missing or wrong, 2 when the stack config or the cluster cannot be read.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from typing import Any

import yaml

from components.config_base import Platform
from components.problems import ConfigError
from components.stack_config import parse_pulumi_config
from offline.engine import stack_config
from verify import ack, oke
from verify import gke as fabric


def _read_or_none(read, *args) -> Any:
    """`read(*args)` as a plain dict, or None where the object does not exist."""
    from kubernetes.client.exceptions import ApiException

    try:
        return read(*args)
    except ApiException as err:
        if err.status != 404:
            raise
        return None


def _daemon_set_and_pods(api_client: Any, namespace: str, name: str, selector: dict) -> tuple:
    from kubernetes import client

    plain = api_client.sanitize_for_serialization
    daemon_set = _read_or_none(
        lambda: plain(client.AppsV1Api(api_client).read_namespaced_daemon_set(name, namespace))
    )
    pods = client.CoreV1Api(api_client).list_namespaced_pod(
        namespace, label_selector=",".join(f"{k}={v}" for k, v in selector.items())
    )
    return daemon_set, plain(pods)["items"]


def read_gke_snapshot(expected: fabric.Expected, api_client: Any) -> fabric.Snapshot:
    """Fetch the objects `fabric.check` needs; absent ones come back empty or None."""
    from kubernetes import client

    custom = client.CustomObjectsApi(api_client)

    def cluster_objects(plural: str) -> list[dict]:
        return custom.list_cluster_custom_object("networking.gke.io", "v1", plural)["items"]

    daemon_set, pods = _daemon_set_and_pods(
        api_client,
        expected.installer_namespace,
        expected.installer_name,
        expected.installer_selector,
    )
    return fabric.Snapshot(
        param_sets=cluster_objects("gkenetworkparamsets"),
        networks=cluster_objects("networks"),
        daemon_set=daemon_set,
        pods=pods,
    )


def read_oke_snapshot(expected: oke.Expected, api_client: Any) -> oke.Snapshot:
    """Fetch the objects `oke.check` needs; absent ones come back empty or None."""
    from kubernetes import client

    plain = api_client.sanitize_for_serialization
    core, dra = client.CoreV1Api(api_client), client.ResourceV1Api(api_client)
    snapshot = oke.Snapshot(
        device_classes=plain(dra.list_device_class())["items"],
        nodes=plain(core.list_node())["items"],
        resource_slices=plain(dra.list_resource_slice())["items"],
        namespace=_read_or_none(
            lambda: plain(core.read_namespace(expected.namespace["metadata"]["name"]))
        ),
        config_map=_read_or_none(
            lambda: plain(
                core.read_namespaced_config_map(
                    expected.tools["metadata"]["name"], expected.tools["metadata"]["namespace"]
                )
            )
        ),
    )
    for ds in expected.daemon_sets:
        key = f"{ds.namespace}/{ds.name}"
        snapshot.daemon_sets[key], snapshot.pods[key] = _daemon_set_and_pods(
            api_client, ds.namespace, ds.name, ds.selector
        )
    return snapshot


def read_ack_snapshot(expected: ack.Expected, api_client: Any) -> ack.Snapshot:
    """Fetch the objects `ack.check` needs: the DaemonSet's pods through its own selector."""
    from kubernetes import client

    plain = api_client.sanitize_for_serialization
    core = client.CoreV1Api(api_client)
    daemon_set = _read_or_none(
        lambda: plain(
            client.AppsV1Api(api_client).read_namespaced_daemon_set(
                expected.daemon_set, expected.namespace
            )
        )
    )
    pods: list[dict] = []
    selector = ((daemon_set or {}).get("spec") or {}).get("selector", {}).get("matchLabels")
    if selector:
        pods = plain(
            core.list_namespaced_pod(
                expected.namespace,
                label_selector=",".join(f"{k}={v}" for k, v in selector.items()),
            )
        )["items"]
    return ack.Snapshot(nodes=plain(core.list_node())["items"], daemon_set=daemon_set, pods=pods)


# Per platform: expectations from the stack, how to read the cluster, and the check.
CHECKS = {
    Platform.GKE_A3_HIGH: (fabric.expected_from, read_gke_snapshot, fabric.check),
    Platform.GKE_A4X: (fabric.expected_from, read_gke_snapshot, fabric.check),
    Platform.GKE_A3_MEGA: (fabric.expected_from, read_gke_snapshot, fabric.check),
    Platform.GKE_A3_ULTRA: (fabric.expected_from, read_gke_snapshot, fabric.check),
    Platform.GKE_A4: (fabric.expected_from, read_gke_snapshot, fabric.check),
    Platform.OKE_DRANET: (oke.expected_from, read_oke_snapshot, oke.check),
    Platform.ACK_LINGJUN: (ack.expected_from, read_ack_snapshot, ack.check),
}


def _stack_kubeconfig(stack: str) -> str | None:
    if shutil.which("pulumi") is None:
        return None
    result = subprocess.run(
        ["pulumi", "stack", "output", "kubeconfig", "--show-secrets", "-s", stack],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout if result.returncode == 0 and result.stdout.strip() else None


def api_client_for(stack: str, kubeconfig: str | None) -> tuple[Any, str]:
    """A `kubernetes` ApiClient, and where its configuration came from."""
    from kubernetes import config

    if kubeconfig:
        return config.new_client_from_config(config_file=kubeconfig), kubeconfig
    text = _stack_kubeconfig(stack)
    if text:
        return (
            config.new_client_from_config_dict(yaml.safe_load(text)),
            f"stack output kubeconfig of {stack}",
        )
    return config.new_client_from_config(), "the current kubectl context"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stack", help="stack name, e.g. a4x-prod")
    parser.add_argument("--kubeconfig", help="kubeconfig file (default: see above)")
    args = parser.parse_args(argv)
    try:
        cfg = parse_pulumi_config(stack_config(args.stack), args.stack)
    except (ConfigError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    expected_from, read_snapshot, check = CHECKS[cfg.platform]
    expected = expected_from(cfg)
    try:
        api_client, source = api_client_for(args.stack, args.kubeconfig)
        snapshot = read_snapshot(expected, api_client)
    except Exception as err:  # noqa: BLE001 (any failure to reach the cluster is reported, not raised)
        print(f"error: cannot read the cluster: {err}", file=sys.stderr)
        return 2

    problems = check(expected, snapshot)
    if problems:
        print(f"FAIL {args.stack} ({source}): {len(problems)} problem(s)")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print(f"OK {args.stack} ({source}): {expected.summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
