"""The node waits' shared script (gpu_fabric/node_wait.py): counts read as Kubernetes quantities."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from gpu_fabric.node_wait import AT_LEAST


@pytest.mark.parametrize(
    ("quantity", "want", "enough"),
    [
        ("8", 8, True),
        ("7", 8, False),
        ("+8", 8, True),
        # The RDMA device plugin's shared mode advertises 1000 IDs as `1k` (Alibaba's Lingjun
        # RDMA guide; tests/fixtures/ack-lingjun-healthy.yaml).
        ("1k", 1, True),
        ("1k", 1000, True),
        ("1k", 1001, False),
        ("1.5k", 1500, True),
        ("2Ki", 2048, True),
        ("2Ki", 2049, False),
        ("1Mi", 1048576, True),
        ("500m", 1, False),
        ("1500m", 1, True),
        ("1e3", 1000, True),
        ("1E3", 1001, False),
        ("1E", 10**18, True),
        (".5", 1, False),
        ("0", 0, True),
        ("", 1, False),
        ("none", 1, False),
        ("8x", 1, False),
        ("1K", 1, False),  # not a suffix of apimachinery's Quantity (k is)
    ],
)
def test_a_quantity_is_compared_by_its_value(quantity, want, enough):
    sh = shutil.which("sh")
    assert sh
    done = subprocess.run(
        [sh, "-c", f'{AT_LEAST}at_least "$1" "$2"', "sh", quantity, str(want)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stderr == ""
    assert (done.returncode == 0) is enough


@pytest.mark.parametrize(
    ("stack", "no_nodes"),
    [
        ("a3-prod", {"gpu-fabric:gpuPool.nodeCount": 0}),
        ("ack-lingjun", {"gpu-fabric:lingjun.nodeCount": 0}),
        ("oke-dranet", {"gpu-fabric:gpuNodes.count": 0}),
    ],
)
def test_a_timeout_with_no_wait_is_refused(stack, no_nodes):
    """No GPU node is awaited, so there is no wait to time out."""
    from tests.conftest import assert_single_rule

    assert_single_rule(
        {**no_nodes, "gpu-fabric:nodeWaitTimeout": "45m"},
        "gpu-fabric:nodeWaitTimeout",
        "45m",
        "has no effect: no GPU node is awaited",
        stack,
    )


def test_the_quantity_check_needs_no_power_operator():
    """BusyBox awk built without math support refuses `^` ("Math support is not compiled in"),
    which would fail every wait on healthy nodes where awk is BusyBox's."""
    program = AT_LEAST.split("awk -v", 1)[1]
    assert "^" not in program.replace("/^", "/")  # a regex anchor is no operator
