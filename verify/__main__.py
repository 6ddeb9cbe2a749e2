"""`python -m verify STACK` (what `make verify STACK=...` runs): check a deployed GPU fabric.

Reads the cluster with the official `kubernetes` client. The kubeconfig comes from `--kubeconfig`,
else from the stack's `kubeconfig` output (`pulumi stack output`, when the Pulumi CLI is on PATH;
a fabric stack's cloud stack, `gpu-fabric:cloudStack`, holds it),
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
from components.registry import spec_of
from components.stack_config import parse_pulumi_config
from components.stack_file import stack_config


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
    checks = spec_of(cfg.platform).verify_module()
    expected = checks.expected_from(cfg)
    try:
        # A fabric stack's cluster is its cloud stack's, whose outputs hold the kubeconfig.
        api_client, source = api_client_for(cfg.cloud_stack or args.stack, args.kubeconfig)
        snapshot = checks.read_snapshot(expected, api_client)
    except Exception as err:  # noqa: BLE001 (any failure to reach the cluster is reported, not raised)
        print(f"error: cannot read the cluster: {err}", file=sys.stderr)
        return 2

    problems = checks.check(expected, snapshot)
    if problems:
        print(f"FAIL {args.stack} ({source}): {len(problems)} problem(s)")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print(f"OK {args.stack} ({source}): {expected.summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
