"""`python -m verify STACK` (what `make verify STACK=...` runs): check a deployed GPU fabric.

Reads the cluster with the official `kubernetes` client. The kubeconfig comes from `--kubeconfig`,
else from the stack's `kubeconfig` output (`pulumi stack output`, when the Pulumi CLI is on PATH;
a fabric stack's cloud stack, `gpu-fabric:cloudStack`, holds it),
else from the current context (KUBECONFIG or ~/.kube/config). Exits 0 when the fabric is healthy,
1 with a list of what is missing or wrong, 2 when the stack config or the cluster cannot be read.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
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


class KubeconfigError(Exception):
    """No usable kubeconfig: says where it looked."""


def _default_kubeconfig() -> str:
    return os.environ.get("KUBECONFIG") or str(Path("~/.kube/config").expanduser())


def api_client_for(stack: str, kubeconfig: str | None) -> tuple[Any, str]:
    """A `kubernetes` ApiClient, and where its configuration came from."""
    from kubernetes import config

    def load(path: str, what: str) -> Any:
        if not Path(path).is_file():
            raise KubeconfigError(f"no kubeconfig file at {path} ({what})")
        try:
            return config.new_client_from_config(config_file=path)
        except config.ConfigException as err:
            raise KubeconfigError(f"{path} ({what}) is not a usable kubeconfig: {err}") from None

    if kubeconfig:
        return load(kubeconfig, "KUBECONFIG_FILE / --kubeconfig"), kubeconfig
    text = _stack_kubeconfig(stack)
    if text:
        return (
            config.new_client_from_config_dict(yaml.safe_load(text)),
            f"stack output kubeconfig of {stack}",
        )
    tried = (
        f"`pulumi stack output kubeconfig -s {stack}` gave none"
        if shutil.which("pulumi")
        else "the Pulumi CLI is not on PATH, so the stack's kubeconfig output was not read"
    )
    path = _default_kubeconfig()
    try:
        return load(path, f"the current kubectl context; {tried}"), f"kubeconfig {path}"
    except KubeconfigError as err:
        raise KubeconfigError(f"{err}; {tried}") from None


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
    cloud = cfg.cloud_stack or args.stack  # a fabric stack's cluster is its cloud stack's
    try:
        api_client, source = api_client_for(cloud, args.kubeconfig)
    except KubeconfigError as err:
        print(f"error: {err}", file=sys.stderr)
        print(f"  write one with: {checks.kubeconfig_command(cfg, args.stack)}", file=sys.stderr)
        print(
            f"  or: pulumi stack output kubeconfig --show-secrets -s {cloud} > kubeconfig.yaml"
            f" && make verify STACK={args.stack} KUBECONFIG_FILE=kubeconfig.yaml",
            file=sys.stderr,
        )
        return 2
    except Exception as err:  # noqa: BLE001 (any failure to reach the cluster is reported, not raised)
        print(f"error: cannot read the cluster: {err}", file=sys.stderr)
        return 2
    try:
        snapshot = checks.read_snapshot(expected, api_client)
    except Exception as err:  # noqa: BLE001 (likewise)
        print(f"error: cannot read the cluster ({source}): {err}", file=sys.stderr)
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
