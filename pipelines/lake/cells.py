"""The cells of a wide utilization file, counted by the load: per line and per series of each lake file.

A wide file's lake rows are its non-empty cells, one row each (~700 M for two days of every metric at the
real width). What the models need of them before any value is read — which lines a partition holds, at what
time, with how many cells; which series, with how many — the load counts as it writes them (the fast path
from its unpivot's indices, the exact path with one query over the staged file). Each lake file
``raw/<family>/_partition=<key>/<name>.parquet`` of a wide family has two companions of the same name:

- ``cells/<family>__lines/_partition=<key>/<name>.parquet``: ``cluster``, ``metric``, ``_source_file``,
  ``_row_number``, ``time``, ``_data_origin``, ``cells`` — one row per line with a cell in that file;
- ``cells/<family>__series/_partition=<key>/<name>.parquet``: ``cluster``, ``metric``, ``_source_file``,
  ``series``, ``cells`` — one row per series with a cell there.

They are staged beside the staged data file (``<data stem>.lines.pq``: the extension keeps them out of the
staging's ``*.parquet`` globs) and published, renamed, kept and removed with it (``state.publish``), so a
companion always counts exactly the rows of the data file of its name. dbt reads them as the sources
``cells.<family>__lines`` and ``cells.<family>__series`` (int_node_metric_lines, int_node_metric_series).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.lake.relation import PARTITION_DIR_PREFIX, lit
from pipelines.settings import Settings

KINDS = ("lines", "series")
STAGED_SUFFIX = ".pq"
LINES_SCHEMA = pa.schema(
    [
        ("cluster", pa.string()), ("metric", pa.string()), ("_source_file", pa.string()),
        ("_row_number", pa.int64()), ("time", pa.timestamp("us")), ("_data_origin", pa.string()),
        ("cells", pa.int64()),
    ]
)  # fmt: skip
SERIES_SCHEMA = pa.schema(
    [
        ("cluster", pa.string()), ("metric", pa.string()), ("_source_file", pa.string()),
        ("series", pa.string()), ("cells", pa.int64()),
    ]
)  # fmt: skip
SCHEMAS = {"lines": LINES_SCHEMA, "series": SERIES_SCHEMA}
_GROUPS = {
    "lines": "cluster, metric, _source_file, _row_number, any_value(time) as time, "
    "any_value(_data_origin) as _data_origin, count(*) as cells",
    "series": "cluster, metric, _source_file, series, count(*) as cells",
}
_KEYS = {
    "lines": "cluster, metric, _source_file, _row_number",
    "series": "cluster, metric, _source_file, series",
}


def source_name(family: str, kind: str) -> str:
    """The dbt source table (and lake folder) of a family's companions of ``kind``."""
    return f"{family}__{kind}"


def cells_dir(settings: Settings, family: str, kind: str) -> Path:
    return settings.lake_dir / "cells" / source_name(family, kind)


def lake_path(settings: Settings, family: str, kind: str, key: str, name: str) -> Path:
    """The companion of kind ``kind`` of lake file ``name`` (``<stem>.parquet``, ``<stem>~<n>.parquet``) of
    partition ``key``."""
    return cells_dir(settings, family, kind) / f"{PARTITION_DIR_PREFIX}{key}" / name


def staged(data_file: Path, kind: str) -> Path:
    """The companion of kind ``kind`` staged beside ``data_file``."""
    return data_file.with_name(f"{data_file.stem}.{kind}{STAGED_SUFFIX}")


def rename_staged(data_file: Path, target: Path) -> None:
    """Rename a staged data file and its staged companions (those there are) after ``target``."""
    for kind in KINDS:
        companion = staged(data_file, kind)
        if companion.exists():
            companion.rename(staged(target, kind))
    data_file.rename(target)


def publish_companions(settings: Settings, family: str, key: str, data_file: Path, name: str) -> None:
    """Move the staged companions of ``data_file`` (published as ``name``) into the lake."""
    for kind in KINDS:
        companion = staged(data_file, kind)
        if companion.exists():
            target = lake_path(settings, family, kind, key, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            companion.replace(target)


def partition_dirs(settings: Settings, family: str, key: str) -> list[Path]:
    """The folders of partition ``key``'s companions, one per kind."""
    return [cells_dir(settings, family, kind) / f"{PARTITION_DIR_PREFIX}{key}" for kind in KINDS]


def companion_paths(settings: Settings, family: str, key: str, name: str) -> list[Path]:
    return [lake_path(settings, family, kind, key, name) for kind in KINDS]


def of_file(settings: Settings, family: str, kind: str, data_file: Path) -> Path:
    """The companion of kind ``kind`` of the raw lake file ``data_file``."""
    return lake_path(
        settings, family, kind, data_file.parent.name.removeprefix(PARTITION_DIR_PREFIX), data_file.name
    )


def count_staged(con: duckdb.DuckDBPyConnection, staging: Path) -> None:
    """Write the companions of every staged data file under ``staging`` (``_partition=<key>/*.parquet``) by
    counting its rows: the exact path's way (the fast path counts as it unpivots, :class:`Counter`)."""
    for data_file in sorted(staging.glob(f"{PARTITION_DIR_PREFIX}*/*.parquet")):
        for kind in KINDS:
            con.execute(
                f"copy (select {_GROUPS[kind]} from read_parquet({lit(str(data_file))}) group by {_KEYS[kind]}) "
                f"to {lit(str(staged(data_file, kind)))} (format parquet, compression zstd)"
            )


class Counter:
    """The cells of one staged data file, counted block by block as the fast path unpivots them."""

    def __init__(self, cluster: str, metric: str, source_file: str, origin: str, series: pa.Array) -> None:
        self._constants = (cluster, metric, source_file, origin)
        self._series = series
        self._per_series = np.zeros(len(series), dtype=np.int64)
        self._rows: list[np.ndarray] = []
        self._times: list[pa.Array] = []
        self._cells: list[np.ndarray] = []

    def add(self, rows: np.ndarray, times: pa.Array, line: np.ndarray, column: np.ndarray) -> None:
        """A block's lines (their row numbers and times) and its cells: each one's line (an index into
        ``rows``) and column (an index into the series)."""
        per_line = np.bincount(line, minlength=len(rows))
        held = np.flatnonzero(per_line)
        self._rows.append(rows[held])
        self._times.append(times.take(pa.array(held)))
        self._cells.append(per_line[held])
        self._per_series += np.bincount(column, minlength=len(self._per_series))

    @property
    def empty(self) -> bool:
        """Whether no cell was counted (lines whose cells are all empty write no data file)."""
        return not self._per_series.any()

    def write(self, data_file: Path) -> None:
        """Write the companions of ``data_file``."""
        cluster, metric, source_file, origin = self._constants

        def constant(value: str, n: int) -> pa.Array:
            return pa.array([value] * n, pa.string())

        rows = np.concatenate(self._rows) if self._rows else np.zeros(0, dtype=np.int64)
        n = len(rows)
        lines = pa.table(
            [
                constant(cluster, n), constant(metric, n), constant(source_file, n), pa.array(rows, pa.int64()),
                pa.concat_arrays(self._times) if self._times else pa.array([], pa.timestamp("us")),
                constant(origin, n), pa.array(np.concatenate(self._cells) if self._cells else [], pa.int64()),
            ],
            schema=LINES_SCHEMA,
        )  # fmt: skip
        held = np.flatnonzero(self._per_series)
        m = len(held)
        series = pa.table(
            [
                constant(cluster, m), constant(metric, m), constant(source_file, m),
                self._series.take(pa.array(held)), pa.array(self._per_series[held], pa.int64()),
            ],
            schema=SERIES_SCHEMA,
        )  # fmt: skip
        pq.write_table(lines, staged(data_file, "lines"), compression="zstd")
        pq.write_table(series, staged(data_file, "series"), compression="zstd")
