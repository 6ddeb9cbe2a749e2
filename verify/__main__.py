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

from components.problems import ConfigError
from components.stack_config import parse, raw_from_pulumi_config
from offline.engine import stack_config
from verify.fabric import Expected, Snapshot, check, expected_from


def read_snapshot(expected: Expected, api_client: Any) -> Snapshot:
    """Fetch the objects `check` needs; absent ones come back empty or None."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    custom = client.CustomObjectsApi(api_client)
    plain = api_client.sanitize_for_serialization

    def cluster_objects(plural: str) -> list[dict]:
        return custom.list_cluster_custom_object("networking.gke.io", "v1", plural)["items"]

    try:
        daemon_set = plain(
            client.AppsV1Api(api_client).read_namespaced_daemon_set(
                expected.installer_name, expected.installer_namespace
            )
        )
    except ApiException as err:
        if err.status != 404:
            raise
        daemon_set = None
    selector = ",".join(f"{k}={v}" for k, v in expected.installer_selector.items())
    pods = client.CoreV1Api(api_client).list_namespaced_pod(
        expected.installer_namespace, label_selector=selector
    )
    return Snapshot(
        param_sets=cluster_objects("gkenetworkparamsets"),
        networks=cluster_objects("networks"),
        daemon_set=daemon_set,
        pods=plain(pods)["items"],
    )


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
        cfg = parse(raw_from_pulumi_config(stack_config(args.stack)), args.stack)
    except (ConfigError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    expected = expected_from(cfg)
    try:
        api_client, source = api_client_for(args.stack, args.kubeconfig)
        snapshot = read_snapshot(expected, api_client)
    except Exception as err:  # noqa: BLE001 (any failure to reach the cluster is reported, not raised)
        print(f"error: cannot read the cluster: {err}", file=sys.stderr)
        return 2

    problems = check(expected, snapshot)
    names = ", ".join(n.name for n in expected.networks)
    if problems:
        print(f"FAIL {args.stack} ({source}): {len(problems)} problem(s)")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print(
        f"OK {args.stack} ({source}): Networks and GKENetworkParamSets {names} Ready; "
        f"{expected.installer_namespace}/{expected.installer_name} rolled out"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
