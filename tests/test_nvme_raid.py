"""OKE's local NVMe array (`gpuNodes.nvmeRaid`, gpu_fabric/oke/nodes/node/nvme-raid.sh): written
and run by cloud-init before the join where asked, nowhere else; the script passes shellcheck and
changes nothing on a node without NVMe drives."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_fabric.oke.nodes.component import NODE_FILES, NVME_RAID_SCRIPT
from tests.conftest import assert_single_rule, run_stack
from tests.stacks import cloud_stacks_on
from tests.test_oke_stack import INSTANCE, cloud_config

STACK = cloud_stacks_on("oke")[0]
SCRIPT = (NODE_FILES / "nvme-raid.sh").read_text()


@pytest.mark.parametrize("level", [0, 10])
def test_the_array_is_made_before_the_join_at_the_level_asked(level):
    plan = run_stack({"gpu-fabric:gpuNodes.nvmeRaid": level}, stack=STACK)
    for instance in plan.of_type(INSTANCE):
        config = cloud_config(instance)
        files = {f["path"]: f for f in config["write_files"]}
        assert files[NVME_RAID_SCRIPT]["content"] == SCRIPT
        assert files[NVME_RAID_SCRIPT]["permissions"] == "0755"
        raid, join = config["runcmd"]
        assert raid == ["bash", NVME_RAID_SCRIPT, str(level)]
        assert join[1] == "/usr/local/sbin/gpu-fabric-join.sh"


def test_without_the_key_no_node_gets_the_script():
    for instance in run_stack(stack=STACK).of_type(INSTANCE):
        config = cloud_config(instance)
        assert NVME_RAID_SCRIPT not in {f["path"] for f in config["write_files"]}
        assert len(config["runcmd"]) == 1


def test_a_level_mdadm_is_not_asked_for_is_refused():
    assert_single_rule(
        {"gpu-fabric:gpuNodes.nvmeRaid": 5}, "gpu-fabric:gpuNodes.nvmeRaid", 5, "0 or 10", STACK
    )


def test_the_script_passes_shellcheck():
    shellcheck = shutil.which("shellcheck", path=str(Path(sys.executable).parent))
    assert shellcheck
    done = subprocess.run(
        [shellcheck, str(NODE_FILES / "nvme-raid.sh")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout


def test_a_node_without_nvme_drives_is_left_as_it_is(tmp_path):
    # A shape without local NVMe: the script exits before it calls any tool (each stubbed, so a
    # call would be recorded) or writes any file.
    calls = tmp_path / "calls"
    for tool in ("mdadm", "mkfs.xfs", "mount", "systemctl", "blkid"):
        stub = tmp_path / tool
        stub.write_text(f'#!/bin/sh\necho "{tool} $*" >> {calls}\n')
        stub.chmod(0o755)
    done = subprocess.run(
        ["bash", str(NODE_FILES / "nvme-raid.sh"), "10", "/mnt/nvme", f"{tmp_path}/nvme*n1"],
        env={"PATH": f"{tmp_path}:{os.environ['PATH']}"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0
    assert "no local NVMe drive" in done.stderr
    assert not calls.exists()
