"""`python -m verify.nccl_judge LOG` (what `make nccl-judge LOG=...` runs): judge a saved
nccl-tests log offline.

The threshold is the catalog's for the stack's fabric (`--stack`: its machine, the collective, the
node count and GPUs per node of the run), or `--min-busbw` GB/s at `--size` bytes. It prints what
each table of the log says and the verdict, and with `--plot out.png` draws bus bandwidth against
message size. Exits 0 when every judged table meets its threshold with correct results, 1 when one
is below it or its results are wrong or unchecked, 2 when the log cannot be read or judged (a table
cut short, the judged size missing) or an argument is wrong.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpu_fabric.catalog import NcclThreshold, catalog

from .nccl import (
    COLLECTIVES,
    LogError,
    Table,
    Threshold,
    Verdict,
    describe,
    describe_verdict,
    human_size,
    judge,
    parse_busbw,
    parse_size,
    read_log,
)


@dataclass(frozen=True)
class Hardware:
    """What a stack runs on, as the thresholds are keyed."""

    stack: str
    fabric: str
    machine: str | None
    gpus_per_node: int | None
    """Every GPU of the machine; None where the catalog does not know the machine."""


@dataclass(frozen=True)
class RunShape:
    nodes: int
    gpus_per_node: int
    how: str
    """Where both numbers come from."""


def hardware_of(stack: str, cfg: Any) -> Hardware:
    """The fabric and machine of a parsed config, as its platform spec says (`hardware`)."""
    from gpu_fabric.registry import spec_of

    return Hardware(stack, *spec_of(cfg.platform).hardware(cfg))


def stack_hardware(stack: str) -> Hardware:
    """The fabric and machine of a stack file's platform (ConfigError, FileNotFoundError)."""
    from gpu_fabric.stack_config import parse_with_cloud_stack_file
    from gpu_fabric.stack_file import stack_config

    return hardware_of(stack, parse_with_cloud_stack_file(stack_config(stack), stack))


def run_shape(
    table: Table, hardware: Hardware, nodes: int | None, gpus_per_node: int | None
) -> RunShape:
    """Nodes and GPUs per node of the run: the overrides, else the rank lines' hosts, else the
    ranks over the machine's GPUs. LogError when the log and the overrides disagree or say
    too little."""
    ranks, ranks_from = table.ranks
    gpus_from = nodes_from = "NODES="
    if gpus_per_node:
        gpus_from = "GPUS_PER_NODE="
    elif table.hosts and ranks and ranks % table.hosts == 0:
        gpus_per_node, gpus_from = ranks // table.hosts, "the rank lines"
    elif hardware.gpus_per_node:
        gpus_per_node, gpus_from = hardware.gpus_per_node, f"every GPU of {hardware.machine}"
    if nodes:
        pass
    elif table.hosts:
        nodes, nodes_from = table.hosts, "the rank lines' hosts"
    elif ranks and gpus_per_node and ranks % gpus_per_node == 0:
        nodes, nodes_from = ranks // gpus_per_node, f"{ranks} ranks read from {ranks_from}"
    if not nodes or not gpus_per_node:
        raise LogError(
            f"the {table.name} table at {table.where}: cannot tell how many nodes ran it "
            f"({ranks_from}); pass NODES= and GPUS_PER_NODE="
        )
    if ranks and nodes * gpus_per_node != ranks:
        raise LogError(
            f"the {table.name} table at {table.where} has {ranks} ranks (read from {ranks_from}), "
            f"not {nodes} nodes x {gpus_per_node} GPUs; fix NODES= or GPUS_PER_NODE="
        )
    how = f"nodes from {nodes_from}, GPUs per node from {gpus_from}"
    return RunShape(nodes, gpus_per_node, how)


def catalog_floor(
    table: Table, hardware: Hardware, shape: RunShape
) -> tuple[Threshold | None, str]:
    """The catalog's floor for this run, and what was looked for: `fabric/machine collective
    NxG`, or why nothing applies (with the runs the catalog knows for the fabric)."""
    entry, candidates = catalog_threshold(table, hardware, shape)
    wanted = (
        f"{hardware.fabric}/{hardware.machine or '-'} {table.collective} "
        f"{shape.nodes}x{shape.gpus_per_node}"
    )
    if entry is None:
        known = ", ".join(t.key for t in candidates) or "none"
        return None, f"the catalog has no threshold for {wanted}; it has: {known}"
    return Threshold(entry.size, entry.min_busbw, _threshold_text(entry)), wanted


def catalog_threshold(
    table: Table, hardware: Hardware, shape: RunShape
) -> tuple[NcclThreshold | None, list[NcclThreshold]]:
    """The catalog's threshold for this run, and every threshold of the stack's fabric."""
    candidates = [
        t
        for t in catalog().nccl_thresholds
        if t.fabric == hardware.fabric and t.machine == hardware.machine
    ]
    match = next(
        (
            t
            for t in candidates
            if (t.collective, t.nodes, t.gpus_per_node)
            == (table.collective, shape.nodes, shape.gpus_per_node)
        ),
        None,
    )
    return match, candidates


def _threshold_text(entry: NcclThreshold) -> str:
    where = "gpu_fabric/catalog.yaml"
    kind = (
        f"an ESTIMATE, not a published figure (why: {where})"
        if entry.estimate
        else f"published (source: {where})"
    )
    return f"catalog {entry.key}, {entry.busbw:g} GB/s less {entry.tolerance_pct:g}%, {kind}"


def _judge_with_stack(
    tables: list[Table], stack: str, args: argparse.Namespace, out: list[str]
) -> list[Verdict]:
    from gpu_fabric.problems import ConfigError

    try:
        hardware = stack_hardware(stack)
    except (ConfigError, FileNotFoundError) as err:
        raise LogError(f"cannot read stack {stack}: {err}") from None
    verdicts = []
    for table in tables:
        if table.collective is None:
            raise LogError(
                f"the table at {table.where} does not name its collective (nccl-tests before "
                f"2.16.7 do not print it); pass COLLECTIVE= (one of {', '.join(COLLECTIVES)})"
            )
        shape = run_shape(table, hardware, args.nodes, args.gpus_per_node)
        threshold, wanted = catalog_floor(table, hardware, shape)
        if threshold is None:
            out.append(f"  not judged (stack {stack}; {shape.how}): {wanted}")
            continue
        out.append(f"  judged as {wanted} ({shape.how})")
        verdicts.append(judge(table, threshold, args.allow_unchecked))
        out += describe_verdict(verdicts[-1])
    if not verdicts:
        raise LogError(
            f"no table of the log has a catalog threshold for stack {stack}; pass MIN_BUSBW= "
            "and SIZE= instead, or add the run to nccl_thresholds in gpu_fabric/catalog.yaml"
        )
    return verdicts


def _judge_with_floor(
    tables: list[Table], threshold: Threshold, args: argparse.Namespace, out: list[str]
) -> list[Verdict]:
    """Every table against one floor: tables of one collective (several jobs, or pods)."""
    collectives = {t.collective for t in tables}
    if len(tables) > 1 and (len(collectives) > 1 or None in collectives):
        names = ", ".join(f"{t.name} at {t.where}" for t in tables)
        raise LogError(f"the log holds {len(tables)} tables ({names}); pick one with COLLECTIVE=")
    verdicts = []
    for table in tables:
        verdicts.append(judge(table, threshold, args.allow_unchecked))
        out += describe_verdict(verdicts[-1])
    return verdicts


def write_plot(path: Path, tables: list[Table], verdicts: list[Verdict]) -> None:
    """busbw against message size (log2), out-of-place and in-place per table, with each judged
    table's minimum (horizontal) and judged size (vertical)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    figure = Figure(figsize=(9, 5.5), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for table in tables:
        series = sorted({(r.type, r.redop, r.root) for r in table.rows}, key=str)
        for key in series:
            rows = [r for r in table.rows if (r.type, r.redop, r.root) == key and r.size > 0]
            label = table.name + (f" {key[0]} {key[1] or ''}".rstrip() if len(series) > 1 else "")
            sizes = [r.size for r in rows]
            axes.plot(
                sizes, [r.out_of_place.busbw for r in rows], "o-", label=f"{label} out-of-place"
            )
            axes.plot(sizes, [r.in_place.busbw for r in rows], "x--", label=f"{label} in-place")
        threshold = next((v.threshold for v in verdicts if v.table is table), None)
        if threshold:
            axes.axhline(
                threshold.min_busbw,
                color="red",
                linestyle=":",
                label=f"minimum {threshold.min_busbw:.2f} GB/s",
            )
            axes.axvline(
                threshold.size,
                color="grey",
                linestyle=":",
                label=f"judged size {human_size(threshold.size)}",
            )
    axes.set_xscale("log", base=2)
    axes.xaxis.set_major_formatter(FuncFormatter(lambda x, _: human_size(int(x)) if x >= 1 else ""))
    axes.set_xlabel("message size (bytes, log2 scale)")
    axes.set_ylabel("bus bandwidth (GB/s)")
    axes.set_ylim(bottom=0)
    axes.set_title("nccl-tests bus bandwidth")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize="small")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png", dpi=100)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("log", type=Path, help="a saved nccl-tests log (any *_perf output)")
    parser.add_argument("--stack", help="judge against the catalog threshold of this stack")
    parser.add_argument("--min-busbw", help="judge against this bus bandwidth, GB/s")
    parser.add_argument("--size", help="the message size judged with --min-busbw: bytes, or 512M")
    parser.add_argument("--collective", choices=COLLECTIVES, help="for tables that do not say")
    parser.add_argument("--nodes", type=int, help="nodes of the run (default: from the log)")
    parser.add_argument("--gpus-per-node", type=int, help="GPUs per node (default: from the log)")
    parser.add_argument("--plot", type=Path, help="write a PNG of busbw against message size")
    parser.add_argument(
        "--allow-unchecked", action="store_true", help="accept a run without -c 1 (#wrong N/A)"
    )
    args = parser.parse_args(argv)
    if args.stack and (args.min_busbw or args.size):
        parser.error("give either --stack or --min-busbw with --size, not both")
    if bool(args.min_busbw) != bool(args.size):
        parser.error("--min-busbw and --size go together: the floor and the size it applies at")
    if args.min_busbw:
        try:
            args.threshold = Threshold(
                parse_size(args.size), parse_busbw(args.min_busbw), "MIN_BUSBW= and SIZE="
            )
        except ValueError as err:
            parser.error(str(err))
    for name in ("nodes", "gpus_per_node"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be a positive whole number")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    try:
        tables = read_log(args.log)
    except LogError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for table in tables:
        if table.collective is None and args.collective:
            table.collective, table.collective_source = args.collective, "COLLECTIVE="
        print("\n".join(describe(table)))
    out: list[str] = []
    verdicts: list[Verdict] = []
    error = None
    try:
        verdicts = _judge(tables, args, out)
    except LogError as err:
        error = err
    if out:
        print("\n".join(out))
    if args.plot:
        write_plot(args.plot, tables, verdicts)
        print(f"plot: {args.plot}")
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0 if all(v.passed for v in verdicts) else 1


def _judge(tables: list[Table], args: argparse.Namespace, out: list[str]) -> list[Verdict]:
    chosen = [t for t in tables if not args.collective or t.collective == args.collective]
    if not chosen:
        names = ", ".join(t.name for t in tables)
        raise LogError(f"the log has no {args.collective}_perf table; it has: {names}")
    if args.stack:
        return _judge_with_stack(chosen, args.stack, args, out)
    if args.min_busbw:
        return _judge_with_floor(chosen, args.threshold, args, out)
    raise LogError(
        "no threshold to judge against: pass STACK=... (the catalog's for its fabric), or "
        "MIN_BUSBW= (GB/s) and SIZE= (bytes)"
    )


if __name__ == "__main__":
    sys.exit(main())
