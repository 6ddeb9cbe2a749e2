"""nccl-tests output: every result table a saved log holds, and a judge of one against a floor.

What nccl-tests prints (NVIDIA/nccl-tests `src/common.cu` and, since 2.17, `src/util.cu`):

- before each table: `# nccl-tests version ...` (2.17.5+), `# Collective test starting: NAME`
  (2.16.7+), `# nThread ... validation: N ...`, `# Using devices` and one line per rank,
  `#  Rank  0 Group  0 Pid 1234 on HOST device  0 [0000:04:00] NAME` (`#   Rank  0 Pid ...`
  before 2.10);
- the table's header, whose column names this parser reads rather than assumes: `size count type
  redop root` and then `time algbw busbw #wrong` twice, out-of-place then in-place. Before 2.13 a
  test printed only its own leading columns (`all_gather`: no redop, no root; `broadcast`: root
  only) and the last column of each side was `error`, the largest numeric error, not a count.
  `-I 1` adds `i_min i_max i_p99 i_cv%` to each side, and `-S 1` a timestamp (date, time) at the
  end;
- one row per size (and per type and op with `-d all` / `-o all`);
- after it: `# Out of bounds values : N OK|FAILED` and `# Avg bus bandwidth : X`, which closes it.

`#wrong` is `N/A` when the run did not check its results (`-c 0`): a row then counts as unchecked,
and `judge` fails it unless unchecked results are allowed. A multi-node run's log may carry Open
MPI's `--tag-output` prefix (`[1,0]<stdout>:`), `kubectl logs --prefix` (`[pod/NAME/CONTAINER] `)
or a `NAME | ` prefix; lines are split into streams by prefix, so streams interleaved line by line
still read as their own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

COLLECTIVES = (
    "all_reduce",
    "all_gather",
    "alltoall",
    "alltoallv",
    "broadcast",
    "reduce",
    "reduce_scatter",
    "sendrecv",
    "gather",
    "scatter",
    "hypercube",
)
"""The nccl-tests binaries, without `_perf`."""

WORD_SIZES = {
    "int8": 1, "uint8": 1, "char": 1, "f8e4m3": 1, "f8e5m2": 1,
    "half": 2, "bfloat16": 2,
    "int32": 4, "uint32": 4, "int": 4, "float": 4,
    "int64": 8, "uint64": 8, "double": 8,
}  # fmt: skip
"""Bytes per element of each `type` nccl-tests prints (its `test_typenames`)."""

COUNT_IS_PER_RANK = {"all_gather", "alltoall", "reduce_scatter", "gather", "scatter", "hypercube"}
"""Collectives whose `count` column is per rank: size = count x word size x ranks."""

BUS_FACTOR_IS_2_RING = {"all_reduce"}
"""Collectives whose busbw is algbw x 2(n-1)/n (the others: (n-1)/n or 1)."""

# The header's column names in every nccl-tests version, and what each one is.
_COLUMNS = {
    "size": "size", "bytes": "size", "count": "count", "N": "count", "type": "type",
    "redop": "redop", "op": "redop", "root": "root", "time": "time", "cputime": "time",
    "algbw": "algbw", "busbw": "busbw", "#wrong": "wrong", "error": "wrong", "res": "wrong",
}  # fmt: skip
_LEAD_COLUMNS = {"size", "count", "type"}
_SIDE_COLUMNS = {"time", "algbw", "busbw", "wrong"}
_PER_ITERATION = {"i_min", "i_max", "i_p99", "i_cv%"}
_TIMESTAMP_TOKENS = 2  # "%Y-%m-%d %H:%M:%S"
_COUNTING_WRONG = "#wrong"  # since 2.13 the side's last column counts wrong elements

_PREFIXES = (
    re.compile(r"\[pod/[^\]\s]+\] "),  # kubectl logs --prefix
    re.compile(r"\[\d+,\d+\]<std(?:out|err)>: ?"),  # Open MPI --tag-output
    re.compile(r"[A-Za-z0-9][\w.-]* \| "),  # NAME | (stern, docker compose)
)
_NCCL_LOG = re.compile(r"\S+:\d+:\d+ \[\d+\] ")  # NCCL's own `host:pid:tid [dev] NCCL INFO ...`
# An NCCL log line glued to a row that nccl-tests had not ended yet (both print to stdout): the
# row keeps the number in front of the host name (the root column, usually).
_GLUED_LOG = re.compile(r"(?P<host>[A-Za-z][\w.-]*):\d+:\d+ \[\d+\] ")
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|-?nan|-?inf", re.IGNORECASE)
_RANK_LINE = re.compile(r"#\s+Rank\s+\d")
_RANK = re.compile(r"#\s+Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?(?:Pid\s+\d+\s+)?on\s+(\S+)\s+device")
_STARTING = re.compile(r"# Collective test starting: (\w+?)(?:_perf)?(?:_mpi)?\s*$")
_PROGRAM = re.compile(r"\b(" + "|".join(COLLECTIVES) + r")_perf(?:_mpi)?\b")
_VERSION = re.compile(r"# nccl-tests version (\S+)")
_OUT_OF_BOUNDS = re.compile(r"# Out of bounds values\s*: (\d+)")
_AVG_BUSBW = re.compile(r"# Avg bus bandwidth\s*: (\S+)")

_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"(\d+)\s*([KMGT]?)(?:i?B)?", re.IGNORECASE)


class LogError(Exception):
    """The log cannot be judged: says what is wrong with it and what to do."""


@dataclass(frozen=True)
class Side:
    """One half of a row: out-of-place or in-place."""

    time_us: float
    algbw: float
    busbw: float
    wrong: int | None
    """Wrong elements; None where the log has no count (`N/A`, or a pre-2.13 `error` column)."""
    checked: bool
    """The run checked these results (`#wrong`/`error` is not `N/A`)."""


@dataclass(frozen=True)
class Row:
    line: int
    size: int
    count: int
    type: str
    redop: str | None
    root: int | None
    out_of_place: Side
    in_place: Side

    @property
    def sides(self) -> tuple[tuple[str, Side], tuple[str, Side]]:
        return ("out-of-place", self.out_of_place), ("in-place", self.in_place)


@dataclass
class Table:
    """One nccl-tests table and what the lines before it say about the run."""

    header_line: int
    stream: str
    """The prefix its lines carry (empty without one)."""
    collective: str | None = None
    collective_source: str = ""
    version: str | None = None
    rank_hosts: dict[int, str] = field(default_factory=dict)
    """Rank -> host, from the `# Using devices` lines."""
    rank_lines_cut: bool = False
    """nccl-tests cut a process's rank lines short (`...`): they do not list every rank."""
    counts_wrong: bool = True
    """`#wrong` counts elements (2.13+); False: `error`, the largest numeric error."""
    rows: list[Row] = field(default_factory=list)
    out_of_bounds: int | None = None
    avg_busbw: float | None = None

    @property
    def name(self) -> str:
        return f"{self.collective}_perf" if self.collective else "nccl-tests"

    @property
    def where(self) -> str:
        return f"line {self.header_line}" + (f" of {self.stream}" if self.stream else "")

    @property
    def checked(self) -> bool:
        return all(side.checked for row in self.rows for _, side in row.sides)

    @property
    def ranks(self) -> tuple[int | None, str]:
        """The number of ranks and where it was read; (None, why not) when the log does not say."""
        if self.rank_hosts and not self.rank_lines_cut:
            return len(self.rank_hosts), "the rank lines"
        inferred = _ranks_from_table(self)
        if inferred:
            return inferred, "the table's sizes and bandwidths"
        return None, "the log has no complete `#  Rank` lines and its table does not tell"

    @property
    def hosts(self) -> int | None:
        """Distinct hosts in the rank lines (nodes, when each pod is a node)."""
        if not self.rank_hosts or self.rank_lines_cut:
            return None
        return len(set(self.rank_hosts.values()))


@dataclass(frozen=True)
class Threshold:
    """What a run must reach: `min_busbw` GB/s at `size` bytes, from `source`."""

    size: int
    min_busbw: float
    source: str


@dataclass
class Verdict:
    table: Table
    threshold: Threshold
    judged: list[Row]
    """The rows at the judged size (several with `-d all` or `-o all`)."""
    failures: list[str]
    notes: list[str]

    @property
    def passed(self) -> bool:
        return not self.failures


# --- reading -------------------------------------------------------------------------------------


def read_log(path: Path) -> list[Table]:
    """Every table of the log at `path`, or LogError."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise LogError(
            f"cannot read {path}: {err.strerror}; give the path of a saved log"
        ) from None
    return parse_log(text, str(path))


def parse_log(text: str, name: str = "the log") -> list[Table]:
    """Every complete table in `text`, in the order they start; LogError when a table is cut short
    or the log holds none."""
    streams: dict[str, list[tuple[int, str]]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        prefix, line = _strip_prefixes(raw.rstrip())
        streams.setdefault(prefix, []).append((number, line))
    tables = [table for stream, lines in streams.items() for table in _parse_stream(stream, lines)]
    if not tables:
        raise LogError(
            f"{name} holds no nccl-tests table (no `#  size  count  type ...  busbw` header); "
            "give the output of an *_perf run"
        )
    return sorted(tables, key=lambda t: t.header_line)


def _strip_prefixes(line: str) -> tuple[str, str]:
    prefix = ""
    stripped = True
    while stripped:
        stripped = False
        for pattern in _PREFIXES:
            match = pattern.match(line)
            if match:
                prefix += match.group(0)
                line = line[match.end() :]
                stripped = True
    return prefix.strip(), line


@dataclass
class _Layout:
    """Where each value of a row is, from the header."""

    lead: list[str]
    side: list[str | None]
    """Per side: the kind of each column (None: per-iteration statistics, not read)."""
    trailing: int
    counts_wrong: bool

    @property
    def width(self) -> int:
        return len(self.lead) + 2 * len(self.side) + self.trailing


def _layout(line: str) -> _Layout | None:
    """The layout of a table header line, None when the line is not one."""
    names = line.lstrip("#").split()
    if "busbw" not in names or not {"size", "bytes"} & set(names):
        return None
    trailing = _TIMESTAMP_TOKENS if names[-1] == "timestamp" else 0
    names = names[: len(names) - (1 if trailing else 0)]
    first_time = next((i for i, n in enumerate(names) if _COLUMNS.get(n) == "time"), None)
    if first_time is None:
        return None
    lead, rest = names[:first_time], names[first_time:]
    half = len(rest) // 2
    if len(rest) % 2 or rest[:half] != rest[half:]:
        return None
    side = [None if n in _PER_ITERATION else _COLUMNS.get(n) for n in rest[:half]]
    kinds = [_COLUMNS.get(n) for n in lead]
    if not _LEAD_COLUMNS <= set(kinds) or not _SIDE_COLUMNS <= set(side):
        return None
    lead_kinds = [kind or name for kind, name in zip(kinds, lead, strict=True)]
    return _Layout(lead_kinds, side, trailing, counts_wrong=_COUNTING_WRONG in rest)


class _Section:
    """The lines since the last table closed: what they say about the next one."""

    def __init__(self) -> None:
        self.version: str | None = None
        self.collective: str | None = None
        self.collective_source = ""
        self.programs: dict[str, int] = {}
        self.rank_hosts: dict[int, str] = {}
        self.rank_lines_cut = False

    def read(self, number: int, text: str) -> None:
        if match := _VERSION.match(text):
            self.version = match.group(1)
        elif match := _STARTING.match(text):
            self.collective, self.collective_source = match.group(1), "the nccl-tests header"
        elif _RANK_LINE.match(text):
            if match := _RANK.match(text):
                self.rank_hosts[int(match.group(1))] = match.group(2)
            # nccl-tests cuts one process's rank lines at 2048 characters, ending them with "..."
            self.rank_lines_cut |= text.endswith("...") or not match
        elif not text.startswith("#"):
            for program in _PROGRAM.findall(text):
                self.programs.setdefault(program, number)

    def named(self) -> tuple[str | None, str]:
        if self.collective:
            return self.collective, self.collective_source
        if len(self.programs) == 1:  # one program named on a command line in front of the table
            (program, number), *_ = self.programs.items()
            return program, f"the {program}_perf command on line {number}"
        return None, ""


def _parse_stream(stream: str, lines: list[tuple[int, str]]) -> Iterable[Table]:
    section = _Section()
    table: Table | None = None
    layout: _Layout | None = None
    pending: tuple[int, list[str]] | None = None  # a row nccl-tests had not finished printing
    for number, line in lines:
        text = line.strip()
        header = _layout(text) if text.startswith("#") else None
        if header:
            if table is not None:
                _refuse_unfinished(table, pending, number)
            table, layout, pending = _start(number, stream, section, header), header, None
            section = _Section()
        elif table is None or layout is None:
            section.read(number, text)
        elif _VERSION.match(text) or _STARTING.match(text):
            _refuse_unfinished(table, pending, number)  # the next test began before this one ended
        elif match := _OUT_OF_BOUNDS.match(text):
            table.out_of_bounds = int(match.group(1))
        elif match := _AVG_BUSBW.match(text):
            _refuse_unfinished(table, pending, number, closing=True)
            table.avg_busbw = float(match.group(1))
            yield table
            table, layout, pending = None, None, None
        elif _is_row_text(text, pending):
            pending = _add_row_text(table, layout, pending, number, text)
    if table is not None:
        _refuse_unfinished(table, pending, None)


def _start(number: int, stream: str, section: _Section, layout: _Layout) -> Table:
    collective, source = section.named()
    return Table(
        header_line=number,
        stream=stream,
        collective=collective,
        collective_source=source,
        version=section.version,
        rank_hosts=section.rank_hosts,
        rank_lines_cut=section.rank_lines_cut,
        counts_wrong=layout.counts_wrong,
    )


def _is_row_text(text: str, pending: tuple[int, list[str]] | None) -> bool:
    """A row starts with its size; the rest of a row cut short starts with a value."""
    first = text.split(maxsplit=1)[0] if text else ""
    return first.isdigit() or bool(pending and (first == "N/A" or _NUMBER.fullmatch(first)))


def _add_row_text(
    table: Table, layout: _Layout, pending: tuple[int, list[str]] | None, number: int, text: str
) -> tuple[int, list[str]] | None:
    """Add a row line (or the rest of one) to the table; returns the row still unfinished."""
    if _NCCL_LOG.match(text):
        return pending  # NCCL's own log line between rows
    glued = _GLUED_LOG.search(text)
    if glued:
        text = text[: glued.start("host")]
    start, tokens = pending if pending else (number, [])
    tokens = tokens + text.split()
    if len(tokens) < layout.width:
        return start, tokens
    if len(tokens) > layout.width:
        raise LogError(
            f"line {start}: a row of the {table.name} table at {table.where} is cut mid-way and "
            f"another starts on line {number}; the run printed a partial row (a crash, or NCCL "
            "output mixed into it: rerun with NCCL_DEBUG=WARN)"
        )
    table.rows.append(_row(table, layout, start, tokens))
    return None


def _row(table: Table, layout: _Layout, number: int, tokens: list[str]) -> Row:
    lead = dict(zip(layout.lead, tokens, strict=False))
    body = tokens[len(layout.lead) :]
    width = len(layout.side)
    try:
        return Row(
            line=number,
            size=int(lead["size"]),
            count=int(lead["count"]),
            type=lead["type"],
            redop=lead.get("redop"),
            root=int(lead["root"]) if "root" in lead else None,
            out_of_place=_side(layout, body[:width]),
            in_place=_side(layout, body[width : 2 * width]),
        )
    except ValueError as err:
        raise LogError(
            f"line {number}: not a row of the {table.name} table at {table.where} ({err}); the "
            "row was garbled or cut, so the log cannot be judged"
        ) from None


def _side(layout: _Layout, values: list[str]) -> Side:
    read = {kind: value for kind, value in zip(layout.side, values, strict=True) if kind}
    wrong = read["wrong"]
    checked = wrong != "N/A"
    return Side(
        time_us=float(read["time"]),
        algbw=float(read["algbw"]),
        busbw=float(read["busbw"]),
        wrong=int(float(wrong)) if checked and layout.counts_wrong else None,
        checked=checked,
    )


def _refuse_unfinished(
    table: Table, pending: tuple[int, list[str]] | None, at: int | None, closing: bool = False
) -> None:
    """LogError for a table cut short: a partial row, no rows, or no closing line."""
    if pending:
        raise LogError(
            f"line {pending[0]}: the last row of the {table.name} table at {table.where} is cut "
            f"mid-way ({' '.join(pending[1])!r}); the run stopped inside it"
        )
    if not table.rows:
        raise LogError(
            f"the {table.name} table at {table.where} has a header but no rows: the run stopped "
            "before its first size; look above the table for the NCCL or CUDA error"
        )
    if closing:
        return
    last = table.rows[-1]
    ended = "the log ends" if at is None else f"line {at} starts another test"
    raise LogError(
        f"the {table.name} table at {table.where} has no closing `# Avg bus bandwidth` line: "
        f"{ended} after {len(table.rows)} sizes (the last {human_size(last.size)}), so the run did "
        "not finish; look after that row for the error"
    )


def _ranks_from_table(table: Table) -> int | None:
    """Ranks implied by the numbers themselves, for logs cut to the table (as documents print
    them): a per-rank count gives size / (count x word size), and all_reduce's busbw is
    algbw x 2(n-1)/n for one n only."""
    rows = [r for r in table.rows if r.count > 0 and r.out_of_place.algbw >= 1]
    if not rows or table.collective is None:
        return None
    if table.collective in COUNT_IS_PER_RANK:
        words = WORD_SIZES.get(rows[0].type)
        found = {
            r.size // (r.count * words) for r in rows if words and r.size % (r.count * words) == 0
        }
        return found.pop() if len(found) == 1 and min(found) > 1 else None
    if table.collective in BUS_FACTOR_IS_2_RING:
        fits = [n for n in range(2, 4097) if all(_bus_fits(r, 2 * (n - 1) / n) for r in rows)]
        return fits[0] if len(fits) == 1 else None
    return None


def _bus_fits(row: Row, factor: float) -> bool:
    # Both bandwidths are printed to 0.01 GB/s: their rounding bounds the mismatch.
    return all(
        abs(side.algbw * factor - side.busbw) <= 0.005 * factor + 0.005 + 1e-9
        for _, side in row.sides
    )


# --- judging -------------------------------------------------------------------------------------


def judge(table: Table, threshold: Threshold, allow_unchecked: bool = False) -> Verdict:
    """Whether `table` reaches the threshold with correct results; LogError when the log cannot
    show it (it never reached the judged size)."""
    judged = rows_at(table, threshold.size)
    failures: list[str] = []
    notes: list[str] = []
    for row in table.rows:
        for side_name, side in row.sides:
            if side.wrong:
                failures.append(
                    f"{side.wrong} wrong elements ({_COUNTING_WRONG}) at {human_size(row.size)} "
                    f"{side_name} (line {row.line}): the results are corrupt, whatever the speed"
                )
    if table.out_of_bounds:
        failures.append(
            f"nccl-tests counted {table.out_of_bounds} out-of-bounds values: the results are wrong"
        )
    if not table.checked:
        message = (
            "#wrong is N/A: the run did not check its results (`-c 0`); rerun with `-c 1` "
            "(the default), or allow unchecked results"
        )
        (notes if allow_unchecked else failures).append(message)
    elif not table.counts_wrong:
        notes.append(
            "this nccl-tests version (before 2.13) prints the largest error, not a count: "
            "correctness is read from its `Out of bounds values` line"
        )
    for row in judged:
        for side_name, side in row.sides:
            if not side.busbw >= threshold.min_busbw:  # `not >=`: a nan busbw fails too
                failures.append(
                    f"busbw {side.busbw:.2f} GB/s {side_name} at {human_size(row.size)} (line "
                    f"{row.line}) is below the minimum {threshold.min_busbw:.2f} GB/s"
                )
    return Verdict(table, threshold, judged, failures, notes)


def rows_at(table: Table, size: int) -> list[Row]:
    """The rows at `size`: exactly, or within 1% below it (nccl-tests rounds the per-rank count of
    gather-like collectives down to 16 bytes, so their size can fall a little short)."""
    exact = [r for r in table.rows if r.size == size]
    near = exact or [r for r in table.rows if size * 0.99 <= r.size <= size]
    if near:
        return near
    largest = max(r.size for r in table.rows)
    reached = "never reached" if largest < size else "skipped"
    raise LogError(
        f"the {table.name} table at {table.where} {reached} the judged size {human_size(size)} "
        f"(its sizes: {human_size(table.rows[0].size)} to {human_size(largest)}); rerun with "
        f"-e {_size_argument(size)} or larger, or judge another size"
    )


def peak(table: Table) -> tuple[Row, str, Side]:
    """The row and side with the highest busbw."""
    return max(
        ((row, name, side) for row in table.rows for name, side in row.sides),
        key=lambda found: found[2].busbw,
    )


def describe(table: Table) -> list[str]:
    """What the table says, in a few lines."""
    ranks, ranks_source = table.ranks
    hosts = table.hosts
    who = f"{ranks} ranks" + (f" on {hosts} hosts" if hosts else "") + f" (from {ranks_source})"
    if not ranks:
        who = f"ranks unknown: {ranks_source}"
    row, side_name, side = peak(table)
    types = sorted({r.type for r in table.rows})
    lines = [
        f"{table.name} at {table.where}"
        + (f" (named by {table.collective_source})" if table.collective_source else "")
        + (f", nccl-tests {table.version}" if table.version else ""),
        f"  {who}; {', '.join(types)};"
        f" {len(table.rows)} rows, {human_size(table.rows[0].size)} to"
        f" {human_size(max(r.size for r in table.rows))}",
        f"  peak busbw {side.busbw:.2f} GB/s at {human_size(row.size)} ({side_name})",
    ]
    if table.checked and table.counts_wrong:
        wrong = sum(s.wrong or 0 for r in table.rows for _, s in r.sides)
        lines.append(f"  #wrong: {wrong} in all; out-of-bounds values: {table.out_of_bounds}")
    elif table.checked:
        lines.append(f"  out-of-bounds values: {table.out_of_bounds}")
    else:
        lines.append("  #wrong: N/A (results not checked)")
    lines.append(f"  avg busbw over all sizes (nccl-tests): {table.avg_busbw:g} GB/s")
    return lines


def describe_verdict(verdict: Verdict) -> list[str]:
    threshold = verdict.threshold
    lines = [
        f"  at {human_size(row.size)}: out-of-place {row.out_of_place.busbw:.2f} GB/s, in-place "
        f"{row.in_place.busbw:.2f} GB/s, #wrong {_wrong_text(row)} ({row.type}"
        + (f" {row.redop}" if row.redop else "")
        + f", line {row.line})"
        for row in verdict.judged
    ]
    lines.append(
        f"  minimum {threshold.min_busbw:.2f} GB/s at {human_size(threshold.size)}: "
        f"{threshold.source}"
    )
    lines += [f"  note: {note}" for note in verdict.notes]
    if verdict.passed:
        lines.append(f"PASS {verdict.table.name}: busbw at {human_size(threshold.size)} meets it")
    else:
        lines.append(f"FAIL {verdict.table.name}: {len(verdict.failures)} problem(s)")
        lines += [f"  - {failure}" for failure in verdict.failures]
    return lines


def _wrong_text(row: Row) -> str:
    return " and ".join("N/A" if s.wrong is None else str(s.wrong) for _, s in row.sides)


# --- sizes ---------------------------------------------------------------------------------------


def parse_size(text: str) -> int:
    """Bytes from `536870912`, `512M`, `512MiB` or `8G` (K, M, G, T are powers of 1024, as in
    nccl-tests' -b and -e)."""
    match = _SIZE.fullmatch(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a size; give bytes (536870912) or 512M, 8G")
    size = int(match.group(1)) * _SIZE_UNITS[match.group(2).upper()]
    if size <= 0:
        raise ValueError(f"{text!r} is not a size to judge; give a positive size")
    return size


def parse_busbw(text: str) -> float:
    try:
        value = float(Decimal(text.strip()))
    except ArithmeticError:
        raise ValueError(f"{text!r} is not a bandwidth; give GB/s, e.g. 63.78") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{text!r} is not a bandwidth; give a positive GB/s")
    return value


def human_size(size: int) -> str:
    """`536870912` -> `512 MiB` (bytes where no unit divides it)."""
    for unit, factor in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} B"


def _size_argument(size: int) -> str:
    for unit, factor in (("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{unit}"
    return str(size)
