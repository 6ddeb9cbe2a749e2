"""`make verify STORAGE=1` (verify/storage_throughput.py): the job's script run here with GNU dd
on directories standing for the volumes (what a healthy node's job prints), dd's own failures as
coreutils prints them (src/dd.c: `failed to open %s`, `error writing %s`), and the TrainJob the
runtime runs it in."""

from __future__ import annotations

import os
import subprocess

import pytest

from gpu_fabric.storage.tiers import PROMISES
from tests.conftest import parse_stack, run_stack
from tests.stacks import CLUSTER_KEY_STACKS
from tests.test_workloads_runtime import runtime_of
from verify.storage_throughput import (
    MARK,
    SCRIPT,
    CouldNotTest,
    judged,
    steps_of,
    storage_benchmark_for,
    storage_trainjob,
    volume_notes,
)

VOLUMES = {"/checkpoints": "fss; ...", "/data": "fss; ..."}


def run_script(tmp_path, data_files: dict[str, int]) -> str:
    """The job's script on `tmp_path/checkpoints` and `tmp_path/data`, 8 MiB a step."""
    checkpoints, data = tmp_path / "checkpoints", tmp_path / "data"
    checkpoints.mkdir()
    data.mkdir()
    for name, size in data_files.items():
        (data / name).write_bytes(os.urandom(size))
    script = (
        SCRIPT.replace("__MIB__", "8")
        .replace("__MARK__", MARK)
        .replace("checkpoints=/checkpoints", f"checkpoints={checkpoints}")
        .replace("data=/data", f"data={data}")
    )
    done = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        env={"HOSTNAME": "gpu-node-1", "PATH": os.environ["PATH"]},
        check=True,
    )
    assert list(checkpoints.iterdir()) == []  # what it wrote is gone
    return done.stdout


def test_a_healthy_run_reports_each_step(tmp_path):
    log = run_script(tmp_path, {"shard-00000.tar": 3 << 20})
    passed, lines = judged(log, VOLUMES)
    assert passed, lines
    assert [(s.what, s.path) for s in steps_of(log)] == [
        ("write", "/checkpoints"),
        ("read", "/checkpoints"),
        ("read", "/data"),
    ]
    assert lines[0].startswith("write /checkpoints: 8 MiB in ")
    assert lines[2].startswith("read /data: 3 MiB in ")


def test_a_data_volume_with_nothing_to_read_fails(tmp_path):
    log = run_script(tmp_path, {"tiny": 100})
    passed, lines = judged(log, VOLUMES)
    assert not passed
    assert "read /data: failed: no file of 1 MiB or more under /data to read" in lines


DD_SUMMARY = "4294967296 bytes (4.3 GB, 4.0 GiB) copied, 3.81 s, 1.1 GB/s"
BROKEN = {
    "read-only": "dd: failed to open '/checkpoints/.gpu-fabric-verify-n1': Read-only file system",
    "denied": "dd: failed to open '/checkpoints/.gpu-fabric-verify-n1': Permission denied",
    "full": "dd: error writing '/checkpoints/.gpu-fabric-verify-n1': No space left on device",
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_volume_that_cannot_be_written_fails_naming_dds_error(case):
    log = (
        f"{MARK} write /checkpoints\n{BROKEN[case]}\n{MARK} read /checkpoints\n"
        f"dd: failed to open '/checkpoints/.gpu-fabric-verify-n1': No such file or directory\n"
        f"{MARK} read /data\n{DD_SUMMARY}\n"
    )
    passed, lines = judged(log, VOLUMES)
    assert not passed
    assert lines[0] == f"write /checkpoints: failed: {BROKEN[case]}"
    assert lines[2].startswith("read /data: 4096 MiB in 3.81 s, 1,127 MB/s (fss; ")


def test_a_mounted_volume_the_job_never_reached_fails():
    passed, lines = judged(f"{MARK} read /data\n{DD_SUMMARY}\n", VOLUMES)
    assert not passed
    assert lines[-1].startswith("/checkpoints: not reached")


@pytest.mark.parametrize("stack", CLUSTER_KEY_STACKS)
def test_the_job_is_a_one_node_trainjob_of_the_stacks_runtime(stack):
    from tests.test_manifests import validate

    changes = {"gpu-fabric:storage": {"checkpoints": {"claim": "ckpt"}}}
    cfg = parse_stack(changes, stack)
    benchmark = storage_benchmark_for(stack, cfg)
    (job,) = benchmark.phases[0].objects
    validate(job)
    assert job["spec"]["trainer"]["numNodes"] == 1
    # No image of its own: the runtime's (whose pods mount the volumes, tests/test_storage.py).
    assert "image" not in job["spec"]["trainer"]
    runtime = runtime_of(run_stack(changes, stack=stack))
    assert job["spec"]["runtimeRef"]["name"] == runtime["metadata"]["name"]
    assert volume_notes(cfg) == {"/checkpoints": f"claim; {PROMISES['claim']}"}


def test_a_stack_without_volumes_has_nothing_to_test():
    stack = CLUSTER_KEY_STACKS[0]
    with pytest.raises(CouldNotTest, match="names no training volume"):
        storage_benchmark_for(stack, parse_stack({}, stack))


def test_the_job_lives_in_the_training_namespace():
    stack = CLUSTER_KEY_STACKS[0]
    cfg = parse_stack({"gpu-fabric:storage": {"data": {"claim": "d"}}}, stack)
    queue = {"namespace": "training", "runtime": {"name": "r"}}
    job = storage_trainjob(stack, queue)  # type: ignore[arg-type]
    assert job["metadata"]["namespace"] == "training"
    assert storage_benchmark_for(stack, cfg).namespace == cfg.queues.namespace


def test_the_tier_table_gives_each_kinds_promise_as_make_verify_prints_it():
    from pathlib import Path

    page = (Path(__file__).parent.parent / "docs" / "storage.md").read_text()
    for promise in PROMISES.values():
        assert promise in page
