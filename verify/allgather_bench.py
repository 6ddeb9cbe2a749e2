"""An all_gather bus-bandwidth run in PyTorch, printed as nccl-tests prints `all_gather_perf`:
what `make verify BANDWIDTH=1` runs as a user's TrainJob on the fabric's runtime
(`verify/trainjob_bandwidth.py`), so the bandwidth is measured on the path users' jobs take.

Each rank runs `torch.distributed.all_gather_into_tensor` over NCCL, out of place and in place
(the input a slice of the output), as nccl-tests' all_gather does; algbw is size / time and busbw
algbw x (n-1)/n, nccl-tests' definitions (nccl-tests doc/PERFORMANCE.md, "AllGather"), so the
catalog's thresholds apply. Started by torchrun, which Kubeflow Trainer configures through PET_*
variables. This file is copied into the job's command: it needs only Python and PyTorch.
"""

from __future__ import annotations

import os
import socket
import sys
import time

HEADER = (
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       "
    "     (us)  (GB/s)  (GB/s)       ",
)
WORD = 4
"""Bytes of a float, the type nccl-tests runs by default."""


def bandwidths(size: int, seconds: float, ranks: int) -> tuple[float, float]:
    """algbw and busbw in GB/s of an all_gather of `size` bytes that took `seconds`."""
    algbw = size / seconds / 1e9
    return algbw, algbw * (ranks - 1) / ranks


def row(size: int, ranks: int, out_of_place: float, in_place: float) -> str:
    """A table row: `size` bytes in all, `count` elements per rank, each side's time in us."""
    sides = []
    for seconds in (out_of_place, in_place):
        algbw, busbw = bandwidths(size, seconds, ranks)
        sides.append(f"{seconds * 1e6:9.1f} {algbw:7.2f} {busbw:7.2f} {0:6d}")
    count = size // WORD // ranks
    return f"{size:12d} {count:13d} {'float':>9} {'none':>7} {-1:7d} " + " ".join(sides)


def rank_lines(hosts: list[str], local_ranks: list[int]) -> list[str]:
    """nccl-tests' `#  Rank` lines: where each rank ran (the judge reads nodes from them)."""
    return [
        f"#  Rank {rank:2d} Group  0 Pid {0:6d} on {host:>10} device {local:2d} [0x00] GPU"
        for rank, (host, local) in enumerate(zip(hosts, local_ranks, strict=True))
    ]


def closing_lines(busbws: list[float]) -> list[str]:
    """What nccl-tests prints after its table (the judge takes a table without them as cut)."""
    average = sum(busbws) / len(busbws) if busbws else 0.0
    return ["# Out of bounds values : 0 OK", f"# Avg bus bandwidth    : {average:g} "]


def sizes(smallest: int = 1 << 20, largest: int = 8 << 30) -> list[int]:
    """Doubling sizes from 1 MiB to 8 GiB, as `-b 1M -e 8G -f 2`."""
    out, size = [], smallest
    while size <= largest:
        out.append(size)
        size *= 2
    return out


def main() -> int:  # pragma: no cover (runs on GPU nodes, in the job's pods)
    import torch  # type: ignore[import-not-found]  # in the job's image, not here
    import torch.distributed as dist  # type: ignore[import-not-found]

    dist.init_process_group("nccl")
    rank, ranks = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    where: list = [None] * ranks
    dist.all_gather_object(where, (socket.gethostname(), local))
    if rank == 0:
        print("# Collective test starting: all_gather_perf", flush=True)
        print(*rank_lines([h for h, _ in where], [lr for _, lr in where]), sep="\n")
        print(*HEADER, sep="\n", flush=True)
    busbws: list[float] = []
    for size in sizes():
        per_rank = size // ranks // WORD
        output = torch.empty(per_rank * ranks, dtype=torch.float32, device="cuda")
        source = torch.ones(per_rank, dtype=torch.float32, device="cuda")
        timings: list[float] = []
        for inputs in (source, output.narrow(0, rank * per_rank, per_rank)):
            for _ in range(5):  # warm-up, as nccl-tests' -w 5
                dist.all_gather_into_tensor(output, inputs)
            torch.cuda.synchronize()
            iterations = 20  # as nccl-tests' -n 20
            start = time.perf_counter()
            for _ in range(iterations):
                dist.all_gather_into_tensor(output, inputs)
            torch.cuda.synchronize()
            timings.append((time.perf_counter() - start) / iterations)
        if rank == 0:
            print(row(per_rank * ranks * WORD, ranks, *timings), flush=True)
            busbws.append(bandwidths(per_rank * ranks * WORD, timings[0], ranks)[1])
    if rank == 0:
        print(*closing_lines(busbws), sep="\n", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
