"""`make nccl-judge`: the nccl-tests log parser, the catalog's thresholds and the offline judge.

The fixtures are the tables of the two published runs (tests/fixtures/nccl/README.md); every broken
or prefixed log below is made from them here, so each refusal is shown on a real table.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import ValidationError

from gpu_fabric.catalog import NcclThreshold, catalog
from tests.stacks import stack_of_machine
from verify import nccl_judge
from verify.nccl import (
    COLLECTIVES,
    LogError,
    Table,
    Threshold,
    describe,
    human_size,
    judge,
    parse_log,
    parse_size,
    read_log,
)

FIXTURES = Path(__file__).parent / "fixtures" / "nccl"
TCPX_LOG = FIXTURES / "gke-tcpx-a3-high-all-gather.log"
OKE_LOG = FIXTURES / "oke-dranet-all-reduce.log"
OKE_EXCERPT = FIXTURES / "oke-dranet-all-reduce.excerpt.log"
TCPX = TCPX_LOG.read_text()
OKE = OKE_LOG.read_text()
MiB, GiB = 1 << 20, 1 << 30

# Where out-of-place and in-place busbw and #wrong are in a row of the current format.
OUT_BUSBW, OUT_WRONG, IN_BUSBW, IN_WRONG = 7, 8, 11, 12


def only(text: str, collective: str | None = None) -> Table:
    """The single table of a log."""
    (table,) = parse_log(text)
    if collective:
        table.collective = collective
    return table


def edit_row(text: str, size: int, **fields: str) -> str:
    """The log with fields (OUT_BUSBW=..., by position) of the row of `size` replaced."""
    positions = dict(OUT_BUSBW=OUT_BUSBW, OUT_WRONG=OUT_WRONG, IN_BUSBW=IN_BUSBW, IN_WRONG=IN_WRONG)
    lines = text.splitlines()
    for i, line in enumerate(lines):
        tokens = line.split()
        if tokens and tokens[0] == str(size):
            for name, value in fields.items():
                tokens[positions[name]] = value
            lines[i] = "  " + "  ".join(tokens)
            return "\n".join(lines) + "\n"
    raise AssertionError(f"no row of size {size}")


def without_lines(table: Table) -> list:
    """The rows' values, not where they are."""
    return [replace(row, line=0) for row in table.rows]


def drop_lines(text: str, pattern: str) -> str:
    return "".join(line for line in text.splitlines(True) if not re.search(pattern, line))


def preamble(program: str, ranks: int = 16, hosts: int = 2) -> str:
    """What nccl-tests 2.19 prints before a table of an MPI run of `ranks` over `hosts` hosts."""
    per_host = ranks // hosts
    lines = [
        "# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803",
        f"# Collective test starting: {program}",
        "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 536870912 step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0",
        "#",
        "# Using devices",
    ]
    lines += [
        f"#  Rank {rank:2d} Group  0 Pid {1000 + rank:6d} on {f'node-{rank // per_host}':>10s} "
        f"device {rank % per_host:2d} [0000:{rank:02x}:00] NVIDIA H100 80GB HBM3"
        for rank in range(ranks)
    ]
    return "\n".join(lines) + "\n"


def modern(table_text: str, program: str, ranks: int = 16, hosts: int = 2) -> str:
    """A table with what nccl-tests 2.19 prints around it."""
    end = f"#\n# Collective test concluded: {program}\n"
    return preamble(program, ranks, hosts) + table_text + end


def make_table(collective: str, ranks: int, rows: list[tuple[int, float, float]]) -> str:
    """A current-format table: one row per (size, out-of-place busbw, in-place busbw)."""
    per_rank = collective in {"all_gather", "alltoall", "reduce_scatter"}
    factor = 2 * (ranks - 1) / ranks if collective == "all_reduce" else (ranks - 1) / ranks
    redop = "sum" if "reduce" in collective else "none"
    lines = [
        "#",
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong"
        "     time   algbw   busbw  #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
        "             (us)  (GB/s)  (GB/s)",
    ]
    for size, out_bw, in_bw in rows:
        count = size // 4 // (ranks if per_rank else 1)
        sides = [
            f"{size / (bw / factor) / 1e3:8.1f}  {bw / factor:6.2f}  {bw:6.2f}       0"
            for bw in (out_bw, in_bw)
        ]
        lines.append(
            f"{size:12d}  {count:12d}  {'float':>8s}  {redop:>6s}  {-1:6d}  " + "  ".join(sides)
        )
    busbws = [bw for _, out_bw, in_bw in rows for bw in (out_bw, in_bw)]
    lines += [
        "# Out of bounds values : 0 OK",
        f"# Avg bus bandwidth    : {sum(busbws) / len(busbws):g} ",
    ]
    return "\n".join(lines) + "\n"


# --- the published tables -----------------------------------------------------------------------


def test_the_gke_tcpx_table_reads_as_published():
    table = only(TCPX)
    assert [r.size for r in table.rows] == [MiB << i for i in range(10)]
    last = table.rows[-1]
    assert (last.out_of_place.busbw, last.in_place.busbw) == (70.87, 71.28)
    assert (last.out_of_place.algbw, last.out_of_place.time_us) == (75.60, 7101.7)
    assert (last.type, last.redop, last.root) == ("float", "none", -1)
    assert all(side.wrong == 0 for row in table.rows for _, side in row.sides)
    assert (table.out_of_bounds, table.avg_busbw, table.checked) == (0, 29.8293, True)
    assert table.collective is None, "the guide's output does not name its collective"


def test_the_dranet_table_reads_as_published():
    table = only(OKE)
    assert [(r.size, r.out_of_place.busbw, r.in_place.busbw) for r in table.rows] == [
        (4 * GiB, 189.35, 189.13),
        (8 * GiB, 190.63, 190.60),
    ]


def test_the_write_ups_excerpt_alone_is_refused_as_unfinished():
    """The write-up prints the header and rows only: without the closing line it is no log."""
    with pytest.raises(
        LogError, match="no closing `# Avg bus bandwidth` line: the log ends after 2"
    ):
        read_log(OKE_EXCERPT)


def test_ranks_come_from_the_numbers_when_the_log_is_only_the_table():
    # all_gather: size = count x 4 bytes x ranks; all_reduce: busbw = algbw x 2(n-1)/n.
    assert only(TCPX, "all_gather").ranks == (16, "the table's sizes and bandwidths")
    assert only(OKE, "all_reduce").ranks == (16, "the table's sizes and bandwidths")
    assert only(TCPX).ranks[0] is None, "without the collective the numbers do not say"


def test_a_full_log_names_its_collective_ranks_and_hosts():
    table = only(modern(TCPX, "all_gather_perf"))
    assert (table.collective, table.collective_source) == ("all_gather", "the nccl-tests header")
    assert (table.ranks, table.hosts, table.version) == ((16, "the rank lines"), 2, "2.19.6")


def test_the_command_in_front_of_a_table_names_its_collective():
    log = "+ mpirun -np 16 /workspace/nccl-tests/build/all_reduce_perf -b 4G -e 8G -c 1\n" + OKE
    table = only(log)
    assert table.collective == "all_reduce"
    assert table.collective_source == "the all_reduce_perf command on line 1"


def test_older_formats_read_by_their_header():
    """nccl-tests before 2.13: all_gather printed no redop or root column, and `error` (the largest
    numeric error) where #wrong is now."""
    old = []
    for line in TCPX.splitlines():
        tokens = line.split()
        if line.startswith("#       size"):
            line = "#  size count type time algbw busbw error time algbw busbw error"
        elif tokens and tokens[0].isdigit():
            line = "  ".join(tokens[:3] + tokens[5:8] + ["0e+00"] + tokens[9:12] + ["0e+00"])
        old.append(line)
    table = only("\n".join(old) + "\n")
    last = table.rows[-1]
    assert (last.redop, last.root, last.out_of_place.busbw) == (None, None, 70.87)
    assert (table.counts_wrong, table.checked, last.out_of_place.wrong) == (False, True, None)


def test_per_iteration_columns_and_timestamps_are_read_past():
    """-I 1 adds i_min i_max i_p99 i_cv% to each side, -S 1 a date and time at the end."""
    lines = []
    for line in OKE.splitlines():
        tokens = line.split()
        if line.startswith("#       size"):
            side = "time algbw busbw #wrong i_min i_max i_p99 i_cv%"
            line = f"# size count type redop root {side} {side} timestamp"
        elif tokens and tokens[0].isdigit():
            stats = ["1.0", "2.0", "1.9", "0.50"]
            line = "  ".join(tokens[:9] + stats + tokens[9:] + stats + ["2026-09-21", "10:00:00"])
        lines.append(line)
    table = only("\n".join(lines) + "\n")
    assert [(r.out_of_place.busbw, r.in_place.busbw) for r in table.rows] == [
        (189.35, 189.13),
        (190.63, 190.60),
    ]


def test_two_tests_in_one_log_read_in_order():
    log = modern(OKE, "all_reduce_perf") + modern(TCPX, "all_gather_perf")
    tables = parse_log(log)
    assert [t.collective for t in tables] == ["all_reduce", "all_gather"]
    assert [len(t.rows) for t in tables] == [2, 10]


@pytest.mark.parametrize(
    "prefix",
    ["[1,0]<stdout>:", "[1,0]<stdout>: ", "launcher-7x2kq | ", "[pod/nccl-launcher/mpi-launcher] "],
    ids=["open-mpi", "open-mpi-5", "pod-name", "kubectl-prefix"],
)
def test_prefixed_lines_of_a_multi_node_run_read_like_plain_ones(prefix):
    plain = modern(OKE, "all_reduce_perf")
    noise = prefix.replace("0]", "9]").replace("launcher", "worker-1")
    lines = []
    for line in plain.splitlines():
        lines.append(prefix + line)
        # another rank's (or pod's) NCCL output between every two lines of rank 0's
        lines.append(
            noise + "node-1:2001:2044 [1] NCCL INFO Channel 00/0 : 9[1] -> 0[0] via NET/IB/0"
        )
    prefixed = only("\n".join(lines) + "\n")
    assert without_lines(prefixed) == without_lines(only(plain))
    assert (prefixed.collective, prefixed.ranks, prefixed.hosts) == (
        "all_reduce",
        (16, "the rank lines"),
        2,
    )
    assert prefixed.stream == prefix.strip()


def test_two_jobs_interleaved_line_by_line_stay_apart():
    """Two launchers' logs merged (`kubectl logs -l ... --prefix`): each stream is its own."""
    job_a = modern(make_table("all_reduce", 8, [(8 * GiB, 96.29, 96.30)]), "all_reduce_perf", 8, 2)
    job_b = modern(make_table("all_reduce", 8, [(8 * GiB, 96.34, 96.35)]), "all_reduce_perf", 8, 2)
    merged = [
        f"[pod/{name}/mpi-launcher] {line}"
        for pair in zip(job_a.splitlines(), job_b.splitlines(), strict=True)
        for name, line in zip(("job-a", "job-b"), pair, strict=True)
    ]
    tables = parse_log("\n".join(merged) + "\n")
    assert [(t.stream, t.rows[0].out_of_place.busbw) for t in tables] == [
        ("[pod/job-a/mpi-launcher]", 96.29),
        ("[pod/job-b/mpi-launcher]", 96.34),
    ]


def test_a_row_split_by_nccls_own_log_lines_is_joined():
    """NCCL prints to the same stdout: its lines can land inside a row nccl-tests had begun."""
    row = next(line for line in OKE.splitlines() if line.lstrip().startswith("8589934592"))
    cut = row.index(" -1 ") + 3  # right after the root column, where the row's body starts
    head, tail = row[:cut], row[cut:]
    split = [
        head + "node-0:1000:1044 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0",
        "node-0:1000:1044 [0] NCCL INFO Connected all rings",
        "NCCL version 2.32.3+cuda13.0",
        tail,
    ]
    assert without_lines(only(OKE.replace(row, "\n".join(split)))) == without_lines(only(OKE))


# --- refusals ------------------------------------------------------------------------------------


def test_a_header_without_rows_is_refused():
    cut = TCPX[: TCPX.index("     1048576")]
    with pytest.raises(LogError, match="has a header but no rows: the run stopped before"):
        parse_log(cut)


def test_a_row_cut_mid_way_is_refused():
    cut = TCPX[: TCPX.index("  536870912") + 60]
    with pytest.raises(LogError, match="line 13: the last row .* is cut mid-way"):
        parse_log(cut)


def test_a_row_cut_and_followed_by_another_is_refused():
    row = next(line for line in TCPX.splitlines() if line.lstrip().startswith("268435456"))
    with pytest.raises(LogError, match="line 12: a row .* is cut mid-way and another starts"):
        parse_log(TCPX.replace(row, row[:60]))


def test_a_table_without_its_closing_line_is_refused():
    with pytest.raises(LogError, match="no closing .* after 10 sizes \\(the last 512 MiB\\)"):
        parse_log(drop_lines(TCPX, "Avg bus bandwidth"))


def test_a_test_that_starts_before_the_last_one_closed_is_refused():
    log = modern(drop_lines(OKE, "Avg bus bandwidth"), "all_reduce_perf") + modern(
        TCPX, "all_gather_perf"
    )
    with pytest.raises(
        LogError, match="all_reduce_perf table at line 24 .*: line 32 starts another test"
    ):
        parse_log(log)


def test_a_garbled_row_is_refused():
    with pytest.raises(LogError, match="line 6: not a row of the nccl-tests table"):
        parse_log(edit_row(OKE, 8 * GiB, OUT_BUSBW="19O.63"))


def test_a_log_without_a_table_is_refused():
    with pytest.raises(LogError, match="holds no nccl-tests table"):
        parse_log("NCCL WARN NET/IB : No device found.\nSegmentation fault\n")


# --- the judge -----------------------------------------------------------------------------------

TCPX_FLOOR = Threshold(512 * MiB, 63.78, "test")


def test_the_published_runs_meet_their_catalog_thresholds():
    for log, collective in ((TCPX, "all_gather"), (OKE, "all_reduce")):
        table = only(log, collective)
        (entry,) = [
            t
            for t in catalog().nccl_thresholds
            if t.collective == collective and t.gpus_per_node == 8 and not t.estimate
        ]
        verdict = judge(table, Threshold(entry.size, entry.min_busbw, entry.key))
        assert verdict.passed, verdict.failures


def test_a_slow_size_fails_and_says_where():
    slow = edit_row(TCPX, 512 * MiB, IN_BUSBW="60.00")
    verdict = judge(only(slow), TCPX_FLOOR)
    assert verdict.failures == [
        "busbw 60.00 GB/s in-place at 512 MiB (line 13) is below the minimum 63.78 GB/s"
    ]


def test_a_log_that_never_reached_the_judged_size_is_refused():
    short = drop_lines(TCPX, r"^\s+536870912 ")
    with pytest.raises(LogError, match="never reached the judged size 512 MiB .* -e 512M"):
        judge(only(short), TCPX_FLOOR)


def test_a_missing_size_in_the_middle_is_refused():
    gap = drop_lines(TCPX, r"^\s+268435456 ")
    with pytest.raises(LogError, match="skipped the judged size 256 MiB"):
        judge(only(gap), Threshold(256 * MiB, 60, "test"))


def test_wrong_results_fail_however_fast():
    wrong = edit_row(TCPX, 4 * MiB, OUT_WRONG="12")
    verdict = judge(only(wrong), TCPX_FLOOR)
    assert verdict.failures == [
        "12 wrong elements (#wrong) at 4 MiB out-of-place (line 6): the results are corrupt, "
        "whatever the speed"
    ]


def test_out_of_bounds_values_fail():
    failed = TCPX.replace("# Out of bounds values : 0 OK", "# Out of bounds values : 3 FAILED")
    assert judge(only(failed), TCPX_FLOOR).failures == [
        "nccl-tests counted 3 out-of-bounds values: the results are wrong"
    ]


def test_unchecked_results_fail_unless_allowed():
    unchecked = TCPX.replace("      0    ", "    N/A    ").replace("      0\n", "    N/A\n")
    table = only(unchecked)
    assert not table.checked and table.rows[0].in_place.wrong is None
    assert "rerun with `-c 1`" in judge(table, TCPX_FLOOR).failures[0]
    allowed = judge(table, TCPX_FLOOR, allow_unchecked=True)
    assert allowed.passed and "did not check its results" in allowed.notes[0]


def test_several_types_in_one_table_are_all_judged():
    """`-d all` prints every size once per type in one table: each of them must reach the floor."""
    row = next(line for line in TCPX.splitlines() if line.lstrip().startswith("536870912"))
    half = row.replace("float", " half").replace("70.87", "50.00")
    verdict = judge(only(TCPX.replace(row, row + "\n" + half)), TCPX_FLOOR)
    assert [r.type for r in verdict.judged] == ["float", "half"]
    assert verdict.failures == [
        "busbw 50.00 GB/s out-of-place at 512 MiB (line 14) is below the minimum 63.78 GB/s"
    ]


def test_a_busbw_that_is_not_a_number_fails():
    verdict = judge(only(edit_row(TCPX, 512 * MiB, OUT_BUSBW="-nan")), TCPX_FLOOR)
    assert verdict.failures[0].startswith("busbw nan GB/s out-of-place at 512 MiB")


def test_the_summary_names_the_collective_ranks_peak_and_wrong():
    text = "\n".join(describe(only(modern(TCPX, "all_gather_perf"))))
    assert "all_gather_perf at line 23 (named by the nccl-tests header), nccl-tests 2.19.6" in text
    assert "16 ranks on 2 hosts (from the rank lines); float; 10 rows, 1 MiB to 512 MiB" in text
    assert "peak busbw 71.28 GB/s at 512 MiB (in-place)" in text
    assert "#wrong: 0 in all; out-of-bounds values: 0" in text


@pytest.mark.parametrize(
    "text, size, shown",
    [
        ("536870912", 512 * MiB, "512 MiB"),
        ("512M", 512 * MiB, "512 MiB"),
        ("512MiB", 512 * MiB, "512 MiB"),
        ("8G", 8 * GiB, "8 GiB"),
        ("1000", 1000, "1000 B"),
    ],
)
def test_sizes_read_as_nccl_tests_reads_them(text, size, shown):
    assert (parse_size(text), human_size(size)) == (size, shown)


# --- the catalog's thresholds --------------------------------------------------------------------


def test_every_threshold_names_a_catalog_machine_of_its_fabric():
    cat = catalog()
    fabric_of = {name: m.fabric for name, m in cat.machines.items()}
    fabric_of |= {name: s.platform for name, s in cat.oci_shapes.items()}
    keys = [t.key for t in cat.nccl_thresholds]
    assert len(keys) == len(set(keys)), "two entries for one run: the lookup would be ambiguous"
    for entry in cat.nccl_thresholds:
        assert entry.machine in fabric_of, entry.key
        assert fabric_of[entry.machine] == entry.fabric, entry.key
        assert entry.collective in COLLECTIVES, entry.key


def test_the_published_figures_are_the_sources():
    published = {t.key: (t.busbw, t.min_busbw) for t in catalog().nccl_thresholds if not t.estimate}
    assert published == {
        "gpudirect-tcpx/a3-highgpu-8g all_gather 2x8": (70.87, 63.78),
        "oke-dranet/BM.GPU.B4.8 all_reduce 2x8": (190.63, 181.10),
        "oke-dranet/BM.GPU.B4.8 all_reduce 2x4": (96.29, 91.48),
    }


def test_an_estimate_must_say_why_and_a_published_figure_is_no_estimate():
    entry = next(t for t in catalog().nccl_thresholds if t.estimate).model_dump()
    with pytest.raises(ValidationError, match="an estimate needs estimate_reason"):
        NcclThreshold.model_validate(entry | {"estimate_reason": None})
    with pytest.raises(ValidationError, match="a published figure has none"):
        NcclThreshold.model_validate(entry | {"estimate": False})
    with pytest.raises(ValidationError, match="tolerance_pct in \\[0, 100\\)"):
        NcclThreshold.model_validate(entry | {"tolerance_pct": 100})


@pytest.mark.parametrize(
    "stack, fabric, machine, gpus",
    [
        ("a3-prod", "gpudirect-tcpx", "a3-highgpu-8g", 8),
        ("a4x-prod", "gpudirect-rdma", "a4x-highgpu-4g", 4),
        ("oke-dranet", "oke-dranet", "BM.GPU.B4.8", 8),
        ("ack-lingjun", "ack-lingjun", None, None),
    ],
)
def test_a_stack_file_gives_its_fabric_and_machine(stack, fabric, machine, gpus):
    assert nccl_judge.stack_hardware(stack) == nccl_judge.Hardware(stack, fabric, machine, gpus)


def _run_at(entry: NcclThreshold, out_bw: float, in_bw: float) -> str:
    ranks = entry.nodes * entry.gpus_per_node
    rows = [(entry.size // 2, out_bw / 2, in_bw / 2), (entry.size, out_bw, in_bw)]
    return modern(
        make_table(entry.collective, ranks, rows), f"{entry.collective}_perf", ranks, entry.nodes
    )


@pytest.mark.parametrize("entry", catalog().nccl_thresholds, ids=lambda t: t.key)
@pytest.mark.parametrize(
    "out_below, in_below, code",
    [(0, 0, 0), (0.01, 0, 1), (0, 0.01, 1)],
    ids=["at-the-limit", "out-of-place-below", "in-place-below"],
)
def test_each_threshold_passes_at_its_limit_and_fails_just_below(
    entry, out_below, in_below, code, tmp_path, capsys
):
    log = tmp_path / "run.log"
    limit = entry.min_busbw
    log.write_text(_run_at(entry, limit - out_below, limit - in_below))
    stack = stack_of_machine()[entry.machine]
    assert nccl_judge.main([str(log), "--stack", stack]) == code
    printed = capsys.readouterr().out
    assert f"judged as {entry.key} (nodes from the rank lines' hosts" in printed
    assert ("PASS" if code == 0 else "FAIL") in printed


# --- the command line ----------------------------------------------------------------------------


def test_cli_passes_the_guides_run_on_its_stack(capsys):
    code = nccl_judge.main([str(TCPX_LOG), "--stack", "a3-prod", "--collective", "all_gather"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "judged as gpudirect-tcpx/a3-highgpu-8g all_gather 2x8" in out
    assert "at 512 MiB: out-of-place 70.87 GB/s, in-place 71.28 GB/s, #wrong 0 and 0" in out
    assert "PASS all_gather_perf" in out


def test_cli_fails_below_a_given_floor(capsys):
    args = [str(TCPX_LOG), "--min-busbw", "70.88", "--size", "512M"]
    assert nccl_judge.main(args) == 1
    assert "busbw 70.87 GB/s out-of-place at 512 MiB (line 13)" in capsys.readouterr().out


def test_cli_judges_a_shared_node_job_by_its_gpus_per_node(tmp_path, capsys):
    """Two 4-GPU jobs on the same two nodes: the rank lines say 8 ranks on 2 hosts."""
    log = tmp_path / "job-a.log"
    run = make_table("all_reduce", 8, [(8 * GiB, 96.29, 96.34)])
    log.write_text(modern(run, "all_reduce_perf", ranks=8, hosts=2))
    assert nccl_judge.main([str(log), "--stack", "oke-dranet"]) == 0
    assert "judged as oke-dranet/BM.GPU.B4.8 all_reduce 2x4" in capsys.readouterr().out


def test_cli_judges_every_job_of_a_merged_log_against_one_floor(tmp_path, capsys):
    jobs = [
        "".join(
            f"[pod/{name}/mpi-launcher] {line}\n"
            for line in modern(
                make_table("all_reduce", 8, [(8 * GiB, bw, bw)]), "all_reduce_perf", 8, 2
            ).splitlines()
        )
        for name, bw in (("job-a", 96.29), ("job-b", 48.50))
    ]
    log = tmp_path / "jobs.log"
    log.write_text(jobs[0] + jobs[1])
    assert nccl_judge.main([str(log), "--min-busbw", "91.48", "--size", "8G"]) == 1
    out = capsys.readouterr().out
    assert out.count("PASS all_reduce_perf") == 1 and out.count("FAIL all_reduce_perf") == 1


def test_cli_wants_one_collective_for_one_floor(tmp_path, capsys):
    log = tmp_path / "two.log"
    log.write_text(modern(OKE, "all_reduce_perf") + modern(TCPX, "all_gather_perf"))
    assert nccl_judge.main([str(log), "--min-busbw", "60", "--size", "512M"]) == 2
    assert "holds 2 tables" in capsys.readouterr().err
    args = [str(log), "--min-busbw", "60", "--size", "512M", "--collective", "all_gather"]
    assert nccl_judge.main(args) == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--stack", "a3-prod"], "does not name its collective .* pass COLLECTIVE="),
        (["--stack", "no-such-stack", "--collective", "all_gather"], "no stack file"),
        (
            ["--stack", "ack-lingjun", "--collective", "all_gather", "--nodes", "2"],
            "NODES= and GPUS",
        ),
        (
            ["--stack", "oke-dranet", "--collective", "all_gather"],
            "no table of the log has a catalog",
        ),
        (["--stack", "a3-prod", "--collective", "all_gather", "--nodes", "3"], "16 ranks .* not 3"),
        (["--min-busbw", "60", "--size", "1G"], "never reached the judged size 1 GiB"),
        ([], "no threshold to judge against"),
    ],
)
def test_cli_cannot_judge_exits_2(args, message, capsys):
    assert nccl_judge.main([str(TCPX_LOG), *args]) == 2
    assert re.search(message, capsys.readouterr().err)


def test_cli_refuses_an_unfinished_log_with_2(capsys):
    assert nccl_judge.main([str(OKE_EXCERPT), "--min-busbw", "180", "--size", "8G"]) == 2
    assert "no closing" in capsys.readouterr().err


def test_cli_refuses_a_missing_file_with_2(tmp_path, capsys):
    assert nccl_judge.main([str(tmp_path / "none.log"), "--stack", "a3-prod"]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["--stack", "a3-prod", "--min-busbw", "60", "--size", "1G"],
        ["--min-busbw", "60"],
        ["--min-busbw", "fast", "--size", "1G"],
        ["--min-busbw", "60", "--size", "a lot"],
        ["--stack", "a3-prod", "--nodes", "0"],
        ["--min-busbw", "nan", "--size", "1G"],
        ["--min-busbw", "60", "--size", "0"],
    ],
)
def test_cli_bad_arguments_exit_2(args):
    with pytest.raises(SystemExit) as exit_:
        nccl_judge.main([str(TCPX_LOG), *args])
    assert exit_.value.code == 2


def test_cli_writes_a_png_plot(tmp_path):
    plot = tmp_path / "plots" / "tcpx.png"
    args = [str(TCPX_LOG), "--min-busbw", "63.78", "--size", "512M", "--plot", str(plot)]
    assert nccl_judge.main(args) == 0
    data = plot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000


def test_verify_imports_nothing_from_offline():
    for path in (Path(__file__).parents[1] / "verify").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            assert not [n for n in names if n.split(".")[0] == "offline"], path.name
