"""The node checks' scripts on what healthy and broken nodes print (tests/health_outputs/,
sources in its SOURCES.md): each script's exit code is node-problem-detector's verdict (0 no
problem, 1 a problem, 2 unknown) and its first line the condition's message."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from gpu_fabric.health.node_checks import ANY_XID_LINE, CHECKS, SCRIPTS, XID_LINE

OUTPUTS = Path(__file__).with_name("health_outputs")
HEALTHY_L = (OUTPUTS / "nvidia-smi-L-8xH100-healthy.txt").read_text()
LOST_GPU = (OUTPUTS / "nvidia-smi-L-device-handle-error.txt").read_text()


def run_check(script: str, tmp_path: Path, *, prints: str = "", exits: int = 0, **env: str):
    """`script` run as node-problem-detector runs it, with an `nvidia-smi` that prints `prints`
    and exits `exits`."""
    fake = tmp_path / "nvidia-smi"
    (tmp_path / "output.txt").write_text(prints)
    fake.write_text(f"#!/bin/sh\ncat {tmp_path / 'output.txt'}\nexit {exits}\n")
    fake.chmod(0o755)
    result = subprocess.run(
        ["/bin/bash", str(SCRIPTS / script)],
        env={"PATH": "/usr/bin:/bin", "NVIDIA_SMI": str(fake), "EXPECTED_GPUS": "8"} | env,
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode, result.stdout.splitlines()[0]


def test_gpu_count_passes_with_every_gpu(tmp_path):
    assert run_check("gpu_count.sh", tmp_path, prints=HEALTHY_L) == (
        0,
        "nvidia-smi lists all 8 GPUs",
    )


def test_gpu_count_fails_with_a_gpu_gone(tmp_path):
    seven = "".join(HEALTHY_L.splitlines(keepends=True)[:7])
    assert run_check("gpu_count.sh", tmp_path, prints=seven) == (1, "nvidia-smi lists 7 of 8 GPUs")


def test_gpu_count_fails_on_a_gpu_the_driver_cannot_reach(tmp_path):
    code, message = run_check("gpu_count.sh", tmp_path, prints=LOST_GPU, exits=15)
    assert code == 1
    assert message.startswith("nvidia-smi lists 0 of 8 GPUs: Unable to determine the device")
    seven_and_lost = "".join(HEALTHY_L.splitlines(keepends=True)[:7]) + LOST_GPU
    assert run_check("gpu_count.sh", tmp_path, prints=seven_and_lost, exits=15)[0] == 1


def test_gpu_count_is_unknown_while_nvidia_smi_cannot_run(tmp_path):
    code, message = run_check(
        "gpu_count.sh", tmp_path, prints="bash: nvidia-smi: not found\n", exits=127
    )
    assert (code, message) == (2, "nvidia-smi -L failed (exit 127): bash: nvidia-smi: not found")


@pytest.mark.parametrize(
    ("values", "verdict"),
    [
        (["0"] * 8, (0, "no uncorrected ECC error on any GPU")),
        (["0", "0", "3", *["0"] * 5], (1, "uncorrected ECC errors: GPU 2: 3")),
        (["0", "[N/A]", *["0"] * 6], (1, "uncorrected ECC errors: GPU 1: [N/A]")),
    ],
)
def test_gpu_ecc(tmp_path, values, verdict):
    prints = "".join(f"{value}\n" for value in values)
    assert run_check("gpu_ecc.sh", tmp_path, prints=prints) == verdict


def test_gpu_ecc_is_unknown_when_nvidia_smi_fails(tmp_path):
    assert run_check("gpu_ecc.sh", tmp_path, prints="error\n", exits=9)[0] == 2


def _sysfs(tmp_path: Path, ports: dict[str, tuple[str, str]]) -> Path:
    """A /sys whose RDMA ports (`mlx5_0/1`) are in the given (state, phys_state) files."""
    root = tmp_path / "sys"
    for port, (state, physical) in ports.items():
        device, number = port.split("/")
        directory = root / "class" / "infiniband" / device / "ports" / number
        directory.mkdir(parents=True)
        (directory / "state").write_text((OUTPUTS / f"sysfs-port-state-{state}.txt").read_text())
        (directory / "phys_state").write_text(
            (OUTPUTS / f"sysfs-port-phys-state-{physical}.txt").read_text()
        )
    root.mkdir(parents=True, exist_ok=True)
    return root


def test_rdma_link_passes_with_every_port_up(tmp_path):
    sysfs = _sysfs(tmp_path, {f"mlx5_{i}/1": ("active", "linkup") for i in range(8)})
    assert run_check("rdma_link.sh", tmp_path, SYSFS=str(sysfs)) == (
        0,
        "all 8 RDMA ports ACTIVE and LinkUp",
    )


def test_rdma_link_fails_naming_the_port_down(tmp_path):
    ports = {f"mlx5_{i}/1": ("active", "linkup") for i in range(8)}
    ports["mlx5_3/1"] = ("down", "disabled")
    sysfs = _sysfs(tmp_path, ports)
    assert run_check("rdma_link.sh", tmp_path, SYSFS=str(sysfs)) == (
        1,
        "RDMA ports down: mlx5_3/1 DOWN Disabled",
    )


def test_rdma_link_is_unknown_with_no_port_in_view(tmp_path):
    sysfs = _sysfs(tmp_path, {})
    assert run_check("rdma_link.sh", tmp_path, SYSFS=str(sysfs))[0] == 2


@pytest.mark.parametrize(
    ("output", "fatal"),
    [
        ("kmsg-xid94-mig.txt", True),
        ("dmesg-xid74-nvlink.txt", True),
        ("kmsg-xid63.txt", False),
        ("dmesg-xid13-xid109.txt", False),
        ("journal-xid45.txt", False),
    ],
)
def test_the_xid_patterns(output, fatal):
    """node-problem-detector searches a rule's pattern in its buffer of kernel messages, anchored
    at the end (kubernetes/node-problem-detector pkg/systemlogmonitor/log_buffer.go,
    `CompilePattern`): the newest line matching is what counts. These patterns use nothing where
    Go's RE2 and Python's `re` differ."""
    lines = [line for line in (OUTPUTS / output).read_text().splitlines() if "NVRM: Xid" in line]

    def matches(pattern: str, line: str) -> bool:
        return re.search(f"(?:{pattern})\\Z", line) is not None

    assert lines and all(matches(ANY_XID_LINE, line) for line in lines)
    assert any(matches(XID_LINE, line) for line in lines) is fatal


def test_every_script_check_has_its_script():
    for check in CHECKS:
        assert not check.script or (SCRIPTS / check.script).is_file()
