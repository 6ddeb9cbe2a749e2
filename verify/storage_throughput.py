"""`make verify STORAGE=1`: the training volumes as a job sees them. A one-node TrainJob through
the stack's runtime (which mounts `/data` and `/checkpoints`, on a GPU node, as every job's pods)
writes a file to `/checkpoints`, reads it back, reads a file of `/data`, deletes what it wrote,
and prints GNU dd's figures; the result is each figure beside what the volume's kind promises.

It fails on a volume that cannot be mounted, written or read (the job's pod Pending on its claim,
`Read-only file system`, `Permission denied`, `No space left on device`); the throughput is
reported, not judged: a kind's published figure is per file system or per node, not per stream
(the tier table in docs/storage.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gpu_fabric.storage.mounts import PATHS
from gpu_fabric.storage.tiers import PROMISES
from gpu_fabric.workloads.runtime import NODE
from gpu_fabric.workloads.settings import TrainingQueueSettings

from .benchmark import Benchmark, Phase, Run
from .nccl_judge import Hardware
from .trainjob_bandwidth import JOBSET_NAME_LABEL, user_trainjob

JOB_NAME = "gpu-fabric-storage"
MARK = "gpu-fabric-storage:"
"""What starts each step's line in the job's log."""
DEFAULT_MIB = 4096
"""How much each step writes or reads: enough to leave a cache's first burst behind."""

SCRIPT = r"""
set -u
mib=__MIB__
checkpoints=/checkpoints
data=/data
probe=$checkpoints/.gpu-fabric-verify-$HOSTNAME
step() {
  echo "__MARK__ $1 $2"; shift 2
  out=$("$@" 2>&1); code=$?
  if [ "$code" -eq 0 ]; then echo "$out" | tail -n 1
  else echo "$out" | grep -m 1 '^dd:' || echo "exited $code"; fi
}
if [ -d "$checkpoints" ]; then
  step write /checkpoints dd if=/dev/zero of="$probe" bs=1M count="$mib" conv=fsync
  # Past the page cache where the file system takes O_DIRECT; a FUSE mount may not.
  step read /checkpoints sh -c \
    'dd if="$0" of=/dev/null bs=1M iflag=direct || dd if="$0" of=/dev/null bs=1M' "$probe"
  rm -f "$probe"
fi
if [ -d "$data" ]; then
  file=$(find "$data" -type f -size +1M 2>/dev/null | head -n 1)
  if [ -n "$file" ]; then
    step read /data dd if="$file" of=/dev/null bs=1M count="$mib"
  else
    echo "__MARK__ read /data"; echo "no file of 1 MiB or more under /data to read"
  fi
fi
"""
"""The job's script: bash, GNU coreutils' dd (in every CUDA and PyTorch image), nothing else. The
read back of /checkpoints bypasses the page cache (`iflag=direct`), which holds what was just
written (where it cannot, as some FUSE mounts, a plain read)."""

# GNU coreutils dd's summary line (src/dd.c, print_xfer_stats), e.g.
# `4294967296 bytes (4.3 GB, 4.0 GiB) copied, 3.81 s, 1.1 GB/s`.
_DD_SUMMARY = re.compile(r"^(\d+) bytes (?:\([^)]*\) )?copied, ([0-9.]+) s, ")


@dataclass(frozen=True)
class Step:
    what: str
    """`write` or `read`."""
    path: str
    """`/checkpoints` or `/data`."""
    output: str
    """dd's last line (its summary, or its error)."""

    @property
    def figure(self) -> tuple[int, float] | None:
        """(bytes, seconds) of a finished step; None where dd printed no summary."""
        match = _DD_SUMMARY.match(self.output)
        if match is None or float(match.group(2)) <= 0:
            return None
        return int(match.group(1)), float(match.group(2))


def steps_of(log: str) -> list[Step]:
    """The job's steps, from its log."""
    lines = log.splitlines()
    steps = []
    for i, line in enumerate(lines):
        if line.startswith(MARK):
            what, path = line.removeprefix(MARK).split()[:2]
            output = lines[i + 1].strip() if i + 1 < len(lines) else "(no output)"
            steps.append(Step(what, path, output))
    return steps


def judged(log: str, volumes: dict[str, str]) -> tuple[bool, list[str]]:
    """(passed, lines): each step's throughput beside its kind's note (`volumes`: mount path ->
    what the volume is and what its kind promises), failed where a step could not run or a
    mounted volume was never reached."""
    steps = steps_of(log)
    lines, passed = [], True
    for step in steps:
        figure = step.figure
        note = volumes.get(step.path, "")
        if figure is None:
            passed = False
            lines.append(f"{step.what} {step.path}: failed: {step.output}")
            continue
        size, seconds = figure
        rate = size / seconds / 1e6
        lines.append(
            f"{step.what} {step.path}: {size / 2**20:.0f} MiB in {seconds:.2f} s, "
            f"{rate:,.0f} MB/s ({note})"
        )
    for path in volumes:
        if not any(s.path == path for s in steps):
            passed = False
            lines.append(f"{path}: not reached (the job never got to it: read its log)")
    return passed, lines


def storage_trainjob(stack: str, queue: TrainingQueueSettings, mib: int = DEFAULT_MIB) -> dict:
    """The job: one node, one process, the runtime's pod (its mounts and placement) unchanged."""
    script = SCRIPT.replace("__MIB__", str(mib)).replace("__MARK__", MARK)
    return user_trainjob(stack, queue, JOB_NAME, ["bash", "-c", script], 1, 1)


def storage_benchmark(stack: str, hardware: Hardware, queue: TrainingQueueSettings) -> Benchmark:
    pods = f"{JOBSET_NAME_LABEL}={JOB_NAME}"
    run = Run(
        name="storage",
        namespace=queue["namespace"],
        pods=pods,
        launcher=pods,
        container=NODE,
        collective=None,
        nodes=1,
        gpus_per_node=hardware.gpus_per_node or 1,
    )
    return Benchmark(
        stack,
        hardware,
        f"the training volumes from a TrainJob on runtime {queue['runtime']['name']}: write and "
        f"read {DEFAULT_MIB} MiB on /checkpoints, read a file of /data",
        queue["namespace"],
        [],
        [Phase(objects=[storage_trainjob(stack, queue)], runs=[run])],
    )


class CouldNotTest(Exception):
    """The stack has nothing to test: says why (exit 2)."""


def volume_notes(cfg: Any) -> dict[str, str]:
    """Mount path -> the volume's kind and what that kind promises."""
    return {
        PATHS[use]: f"{volume.kind}; {PROMISES[volume.kind]}"
        for use, volume in cfg.storage.volumes()
    }


def storage_benchmark_for(stack: str, cfg: Any) -> Benchmark:
    """The volumes' job of the stack (CouldNotTest where it mounts none)."""
    from gpu_fabric.registry import spec_of

    from .nccl_judge import hardware_of

    if not cfg.storage.volumes():
        raise CouldNotTest(
            "the stack names no training volume (gpu-fabric:storage.data or .checkpoints)"
        )
    queue = spec_of(cfg.platform).training_queue_module().training_queue_of(cfg)
    if queue is None or "runtime" not in queue:
        raise CouldNotTest("the stack has no training runtime to mount the volumes")
    return storage_benchmark(stack, hardware_of(stack, cfg), queue)
