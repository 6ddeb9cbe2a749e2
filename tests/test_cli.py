"""The `gpu-fabric` console command: installed by the package, each command's exit codes kept.

The exit-code tests run the installed script (`.venv/bin/gpu-fabric`, from pyproject.toml's
`[project.scripts]` through requirements-dev.txt's editable install), as a user's script or CI
would, from a directory outside the checkout.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpu_fabric import cli

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).with_name("gpu-fabric")
TCPX_LOG = ROOT / "tests" / "fixtures" / "nccl" / "gke-tcpx-a3-high-all-gather.log"
# The TCPX guide's run: two a3-highgpu-8g nodes, 70.87 GB/s at 512 MiB (the catalog's floor is
# that less 10%).
TCPX_RUN = ["--stack", "a3-prod", "--collective", "all_gather", "--nodes", "2"]


def gpu_fabric(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        ([str(TCPX_LOG), *TCPX_RUN, "--gpus-per-node", "8"], 0, "PASS all_gather_perf"),
        (
            [str(TCPX_LOG), "--min-busbw", "80", "--size", "512M"],
            1,
            "is below the minimum 80.00 GB/s",
        ),
        (["no-such.log", "--stack", "a3-prod"], 2, "no-such.log"),
    ],
    ids=["meets", "below", "unreadable"],
)
def test_nccl_judge_exits_as_documented(tmp_path, args, code, says):
    done = gpu_fabric("nccl-judge", *args, cwd=tmp_path)
    assert done.returncode == code, done.stderr
    assert says in done.stdout + done.stderr


def test_every_command_has_its_help_under_its_name():
    runner = CliRunner()
    listing = runner.invoke(cli.main, ["--help"])
    assert listing.exit_code == 0
    for name, command in cli.COMMANDS.items():
        assert name in listing.output
        result = runner.invoke(cli.main, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert f"usage: gpu-fabric {name}" in result.output, name
        assert command.exits.split(",")[0] in listing.output.replace("\n", " ").replace("  ", " ")


def test_a_failure_of_gpu_fabric_itself_exits_3_not_a_verdict(monkeypatch, capsys):
    def broken(argv):
        raise RuntimeError("a bug")

    import verify.nccl_judge

    monkeypatch.setattr(verify.nccl_judge, "main", broken)
    assert cli.run("nccl-judge", [str(TCPX_LOG)]) == cli.BUG == 3
    err = capsys.readouterr().err
    assert "RuntimeError: a bug" in err and "failed inside gpu-fabric (exit 3)" in err


def test_a_bad_argument_exits_2():
    assert cli.run("nccl-judge", ["--no-such-option"]) == 2


def test_outside_a_checkout_the_commands_say_where_they_run(monkeypatch, capsys):
    monkeypatch.setattr(cli, "checkout_root", lambda start=None: None)
    assert cli.run("plan", ["a3-prod"]) == 2
    assert "runs in a gpu-fabric checkout" in capsys.readouterr().err


def test_the_checkout_is_found_from_a_subdirectory_and_from_the_installed_package(tmp_path):
    assert cli.checkout_root(ROOT / "docs") == ROOT
    assert cli.checkout_root(tmp_path) == ROOT  # the editable install's checkout


def test_a_command_leaves_the_process_arguments_as_they_were():
    before = sys.argv[0]
    cli.run("nccl-judge", ["--help"])
    assert sys.argv[0] == before
