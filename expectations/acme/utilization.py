"""Rules shared by the long utilization families ``acme__gpu_metrics`` (DCGM) and ``acme__node_metrics``
(Prometheus), DATASETS.md §1 "Utilization".

A raw row is one non-empty cell of a wide file: ``time``, ``cluster``, ``metric``, ``series`` (the wide
file's column name verbatim) and ``value``; it is identified by ``(_source_file, _row_number, series)``.
Every rule is a derived column computed in the frame's DuckDB query and bounded by one GX expectation. The
loader refuses a wide header that repeats a column name, so a line holds each series once: two rows share a
file, series and Time only when two lines of the file share a Time. The series rules read the column name's
shape once per distinct (cluster, series), and the copy number is counted only on the lines whose Time
repeats (``Lookup``; sparse: the duplicate rule runs on those rows alone): a real-shaped file has a few
distinct names and a handful of repeated lines among hundreds of millions of values. A range rule runs on
the rows outside its range alone (sparse too), found by a filter that the row groups' min/max of ``value``
answer without reading a clean file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from expectations.rules import (
    LOOKUP_VALUE,
    PROVENANCE_COLUMNS,
    ROW_INDEX,
    Lookup,
    Rule,
    between,
    in_set,
    not_in_set,
    per_key,
)

ROW_KEY = (*ROW_INDEX, "series")
COLUMNS: dict[str, str] = {
    "time": "TIMESTAMP",
    "time_utc_offset": "VARCHAR",
    "cluster": "VARCHAR",
    "metric": "VARCHAR",
    "series": "VARCHAR",
    "value": "DOUBLE",
    **PROVENANCE_COLUMNS,
}
SAMPLE_SECONDS = 15
# Seconds past the last point of the 15 s grid, 0 on it: whole microseconds, with a modulo that stays in
# [0, 15 s) before 1970 too (``epoch(time) % 15`` is a double modulo, several times slower per value).
_GRID_US = SAMPLE_SECONDS * 1_000_000
SECONDS_OFF_GRID_SQL = f"((epoch_us(time) % {_GRID_US} + {_GRID_US}) % {_GRID_US}) / 1000000"

_IP = r"[0-9]{1,3}(\.[0-9]{1,3}){3}"
# Column-name shapes: node IP, GPU `<IP>-<index>` (index 0-7), Kalos pod name (`lingjun-pod9-0016-3`, the
# last number the GPU index), and the spurious `<IP>.1` of Seren NODE_MEMORY on 2023-07-19 [V].
SERIES_KIND_SQL = f"""case
    when regexp_full_match(series, '{_IP}') then 'ip'
    when regexp_full_match(series, '{_IP}-[0-7]') then 'ip_index'
    when regexp_full_match(series, '{_IP}\\.1') then 'ip_dot1'
    when cluster = 'kalos' and regexp_full_match(series, '[a-z][a-z0-9]*-pod[0-9]+-[0-9]+(-[0-7])?') then 'pod'
    else 'unknown' end"""
KNOWN_SERIES_KINDS = ("ip", "ip_index", "ip_dot1", "pod")
SERIES_KIND = per_key(SERIES_KIND_SQL, ("cluster", "series"))


def repeated_lines(rows: str, within: tuple[str, ...]) -> str:
    """``(_source_file, _row_number)`` of the lines whose Time repeats ``within`` some columns (the file, or
    the cluster): the only lines a sample can have an earlier copy on (one cell per line and series).
    ``rows``: the cells, or their lines as the load counted them (``FrameSources.lines``: one row a line)."""
    line = ", ".join(dict.fromkeys(["_source_file", "_row_number", *within, "time"]))
    return (
        f"select _source_file, _row_number from (select distinct {line} from {rows}) "
        f"qualify count(*) over (partition by {', '.join(within)}, time) > 1"
    )


def on_line(row: str, line: str) -> str:
    """The join condition of a row (alias ``row``) and a line or a cell of one (alias ``line``): the same
    ``_row_number`` and ``_source_file``, the file compared as a range. DuckDB hashes every equality key of
    every row it probes, and the file's name, a string, doubled the join's time; a range is tested only on
    the rows whose line number matched. A row group's min/max of both (``pipelines.lake.parquet_files``)
    let the scan skip the row groups of other lines and files."""
    return (
        f"{row}._row_number = {line}._row_number "
        f"and {row}._source_file >= {line}._source_file and {row}._source_file <= {line}._source_file"
    )


def _rows_on_lines(rows: str, lines: str, value: str) -> str:
    """Every row of ``rows`` on one of ``lines`` (``_source_file``, ``_row_number``), whole, with ``value``
    as the lookup's value: a sparse lookup of something a line decides."""
    return (
        f"select *, {value} as {LOOKUP_VALUE} "
        f"from {rows} as cell semi join ({lines}) as line on {on_line('cell', 'line')}"
    )


def _time_copies(rows: str, lines: str | None = None) -> str:
    """Each row on a line whose (file, Time) repeats, with its copy number; every other row is copy 1. The
    repeated lines are found among the lines the load counted when there are (a row a line, not a cell)."""
    copy = "row_number() over (partition by _source_file, series, time order by _row_number)"
    return _rows_on_lines(rows, repeated_lines(lines or rows, ("_source_file",)), copy)


TIME_COPY = Lookup(_time_copies, ("_source_file", "_row_number", "series"), default="1", sparse=True)


def _off_grid(rows: str, lines: str | None = None) -> str:
    """Each row on a line whose Time is off the sampling grid, with its seconds past the grid; every other row
    is on it (0). Time is a line's: the lines off the grid are found among the lines the load counted when
    there are (a row a line, not a cell), so the grid is computed per line, not per value."""
    off = f"select distinct _source_file, _row_number from {lines or rows} where {SECONDS_OFF_GRID_SQL} > 0"
    return _rows_on_lines(rows, off, SECONDS_OFF_GRID_SQL)


OFF_GRID = Lookup(_off_grid, ("_source_file", "_row_number", "series"), default="0", sparse=True)


@dataclass(frozen=True)
class _OutOfRange:
    """``Lookup.select`` of a range rule (a dataclass, so the suite version sees its arguments): the rows of
    some metrics whose value lies outside [low, high], whole, the value as the lookup's. A plain filter on
    ``metric`` and ``value``: a lake file's row groups carry their min/max of both
    (``pipelines/lake/parquet_files.py``), so the scan skips every row group that holds no such row, and a
    file within range is not read at all."""

    metrics: tuple[str, ...]
    low: float
    high: float

    def __call__(self, rows: str, lines: str | None = None) -> str:
        names = ", ".join(f"'{m}'" for m in self.metrics)
        return (
            f"select *, value as {LOOKUP_VALUE} from {rows} "
            f"where metric in ({names}) and (value < {self.low!r} or value > {self.high!r})"
        )


def _out_of_range(metrics: Sequence[str], low: float, high: float) -> Lookup:
    """A range rule's value: sparse, as only the rows outside the range can break the rule (every row of
    another metric, and every row within range, passes)."""
    return Lookup(
        _OutOfRange(tuple(metrics), float(low), float(high)), ROW_KEY, repr(float(low)), sparse=True
    )


def series_rules() -> tuple[Rule, ...]:
    return (
        Rule(
            "series_name_known",
            "quarantine",
            "A metric column is named by a node IP, `<IP>-<index>` (GPU 0-7), a Kalos pod name, or the known "
            "`<IP>.1` variant; any other name cannot be placed on a node.",
            in_set("series_kind", KNOWN_SERIES_KINDS),
            derived={"series_kind": SERIES_KIND},
            columns=("cluster", "metric", "series"),
        ),
        Rule(
            "series_not_pod_name",
            "flag",
            "Kalos SM_ACTIVE is said to name columns by pod (`lingjun-pod9-0016-3`) instead of IP: kept, the "
            "pod name is the node's natural key.",
            not_in_set("series_kind", ["pod"]),
            derived={"series_kind": SERIES_KIND},
            columns=("cluster", "metric", "series"),
        ),
        Rule(
            "time_on_15s_grid",
            "flag",
            f"Samples are taken every {SAMPLE_SECONDS} s: Time falls on the {SAMPLE_SECONDS}-second grid.",
            between("seconds_off_grid", max_value=0),
            derived={"seconds_off_grid": OFF_GRID},
            columns=("time",),
        ),
        Rule(
            "time_not_duplicated",
            "duplicate",
            "A file has one Time row per sample; repeated Time rows are counted per file and series and the "
            "first (by _row_number) is kept downstream.",
            between("time_copy", max_value=1),
            derived={"time_copy": TIME_COPY},
            columns=("time",),
        ),
    )


def percentage_rule(metrics: Sequence[str]) -> Rule:
    return Rule(
        "percentage_within_0_100",
        "flag",
        f"{', '.join(metrics)} are percentages: 0-100.",
        between("percent", min_value=0, max_value=100),
        derived={"percent": _out_of_range(metrics, 0, 100)},
        columns=("metric", "series", "value"),
    )


def physical_range_rule(
    name: str, what: str, metrics: Sequence[str], low: float, high: float, unit: str
) -> Rule:
    column = f"{what}_{unit.lower()}"
    return Rule(
        name,
        "flag",
        f"{', '.join(metrics)} ({what}) lie within the physical range {low:g}-{high:g} {unit}.",
        between(column, min_value=low, max_value=high),
        derived={column: _out_of_range(metrics, low, high)},
        columns=("metric", "series", "value"),
    )
