"""The fast path for a clean wide utilization file: read once with pyarrow, unpivot in Arrow, write Parquet.

The exact path (``loader._parse``) splits every line in SQL so that any bad line becomes a reject with its
reason; on a 2,345-column file that moves ~3 MB/s on one core. A clean file needs none of that: pyarrow's
streaming CSV reader (both cores) parses it in blocks with ``Time`` as text and every other column as a
double, each block is unpivoted column by column (empty cells dropped) and written to one Parquet file per
date partition. Anything the fast path cannot prove clean — a field-count mismatch (a truncated or cut-off
last line), a cell that is not a number (a repeated header), a blank line (pyarrow skips those, so the rows
read fall short of the lines counted), an unparseable ``Time``, rows with real/synthetic line ranges — raises
:class:`NotClean`, and the loader parses the file on the exact path instead. When it succeeds the staged
lake rows are the ones the exact path would write (same columns, types and values, in another order: series
by series within a block; the content hashes and load state are computed by the same code afterwards), and
the file has no rejects. Each staged file's cells are counted per line and per series from the unpivot's
indices as they are written (:class:`pipelines.lake.cells.Counter`).

Values that are the same on every row of a file (cluster, metric, source file, load time, origin) are written
as one-entry Parquet dictionaries (a run of zeros per row group), ``series`` as a dictionary of the header's
names, ``time`` and ``_row_number`` delta-encoded (:mod:`pipelines.lake.parquet_files`): nothing is repeated
per value in the file but the value itself.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from pipelines.families.partition_keys import partition_sql
from pipelines.lake import csv_sql as q
from pipelines.lake.cells import Counter
from pipelines.lake.line_breaks import LineBreaks
from pipelines.lake.parquet_files import writer_options
from pipelines.lake.relation import PARTITION_DIR_PREFIX

# CSV bytes per parsed block (~340 lines of a 2,345-column file). What is in flight — pyarrow's read-ahead,
# the block's unpivot, one pending write — scales with it: on a real-shaped 943 MB file 4 MB blocks peak at
# ~0.5 GiB, 32 MB blocks at ~1.5 GiB, at the same speed.
BLOCK_BYTES = 4 << 20
PARQUET_ROW_GROUP = 1 << 20
# Values the Parquet writer takes per step. Each step compares a dictionary column's dictionary with the
# row group's first (the 2,344 series names): at the default 1,024 that alone was 5× the column's cost.
WRITE_BATCH = 1 << 17
# The long layout of a wide file, as the exact path's SQL describes it (DuckDB types; the load state).
COLUMNS: list[list[str]] = [
    ["time", "TIMESTAMP"], ["time_utc_offset", "VARCHAR"], ["cluster", "VARCHAR"], ["metric", "VARCHAR"],
    ["series", "VARCHAR"], ["value", "DOUBLE"], ["_source_file", "VARCHAR"], ["_row_number", "BIGINT"],
    ["_loaded_at", "TIMESTAMP"], ["_data_origin", "VARCHAR"],
]  # fmt: skip
_STRING = pa.string()
_CONSTANT = pa.dictionary(pa.int8(), _STRING)
# Every column but the UTC offset (a Time without one has none) holds a value on every row, and says so: a
# required Parquet column has no definition levels to encode, a sixth less of the writer's time. Readers take
# the lake's files as nullable whatever each says (DuckDB and Spark merge a partition's fast and exact files).
OPTIONAL = ("time_utc_offset",)
SCHEMA = pa.schema(
    [
        pa.field(name, kind, nullable=name in OPTIONAL)
        for name, kind in (
            ("time", pa.dictionary(pa.int32(), pa.timestamp("us"))),
            ("time_utc_offset", pa.dictionary(pa.int32(), pa.string())),
            ("cluster", _CONSTANT),
            ("metric", _CONSTANT),
            ("series", pa.dictionary(pa.int32(), pa.string())),
            ("value", pa.float64()),
            ("_source_file", _CONSTANT),
            ("_row_number", pa.dictionary(pa.int32(), pa.int64())),
            ("_loaded_at", pa.dictionary(pa.int8(), pa.timestamp("us"))),
            ("_data_origin", _CONSTANT),
        )
    ]
)


class NotClean(Exception):
    """The file is not one the fast path can load exactly; the exact path parses it (message: why)."""


@dataclass(frozen=True)
class WideFile:
    """What the fast path needs to know of one wide file."""

    path: Path
    header: list[str]
    cluster: str
    metric: str
    source_file: str  # the mirror path
    origin: str  # real | synthetic (a mixed file goes the exact path)
    loaded_at: str
    offset: int = 0  # data lines before the first line read (an appended tail)
    start: int = 0  # byte offset of the first line read: 0 is the header; an appended tail starts after it


@dataclass
class FastResult:
    lines: int  # data lines read (every one loaded: the fast path has no rejects)
    written: int  # values written
    seconds: dict[str, float]  # main thread: waiting for parsed blocks, unpivoting, waiting for the writer


class _CountingReader:
    """A binary file that counts the line breaks pyarrow reads through it (``LineBreaks``)."""

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh = fh
        self.breaks = LineBreaks()
        self.closed = False

    def read(self, n: int = -1) -> bytes:
        data = self._fh.read(n)
        self.breaks.add(data)
        return data

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self.closed = True


# The Time text of every real and sample utilization file: local time with its offset, as the upstream writes it.
_PLAIN_TIME = r"^(19|20)\d\d-\d\d-\d\d \d\d:\d\d:\d\d[+-]\d\d:\d\d$"
_PLAIN_FORMAT = "%Y-%m-%d %H:%M:%S"


def plain_times(text: pa.Array) -> tuple[pa.Array, pa.Array, pa.Array] | None:
    """``Time`` strings all of the plain shape (``2023-07-19 00:00:15+08:00``) → UTC timestamp, offset and
    date key with pyarrow, the same values the exact path's SQL gives; None when any string is of another
    shape or a date pyarrow reads otherwise than DuckDB (``_Times`` then asks DuckDB). pyarrow rolls an
    impossible date over (``02-29`` of a common year → ``03-01``, second 60 → the next minute) where DuckDB
    rejects it, so a value is taken only when its local time, written back, is the text it was read from."""
    if len(text) == 0 or text.null_count or not pc.all(pc.match_substring_regex(text, _PLAIN_TIME)).as_py():
        return None
    utc = pc.strptime(text, format=_PLAIN_FORMAT + "%z", unit="us", error_is_null=True)
    if utc.null_count:
        return None
    utc = utc.cast(pa.timestamp("us"))
    offset = pc.utf8_slice_codeunits(text, 19)
    sign = pc.if_else(pc.equal(pc.utf8_slice_codeunits(offset, 0, 1), "-"), -1, 1)
    minutes = pc.add(
        pc.multiply(pc.cast(pc.utf8_slice_codeunits(offset, 1, 3), pa.int64()), 60),
        pc.cast(pc.utf8_slice_codeunits(offset, 4, 6), pa.int64()),
    )
    local_us = pc.add(pc.cast(utc, pa.int64()), pc.multiply(pc.multiply(sign, minutes), 60_000_000)).cast(
        pa.timestamp("us")
    )
    written = pc.utf8_slice_codeunits(pc.strftime(local_us, _PLAIN_FORMAT), 0, 19)  # %S adds .ffffff
    if not pc.all(pc.equal(written, pc.utf8_slice_codeunits(text, 0, 19))).as_py():
        return None
    return utc, offset, pc.strftime(utc, "%Y-%m-%d")


class _Times:
    """``Time`` strings → timestamp, UTC offset and partition key, by the exact path's own SQL expressions
    (plain ones by :func:`plain_times`, which gives the same values without a query per block)."""

    def __init__(self, partitioning: str) -> None:
        self._plain = partitioning == "date"  # the partition key plain_times gives
        self._con = duckdb.connect()
        self._con.execute("set TimeZone = 'UTC'; set threads = 1")
        col = q.BoundColumn(1, "Time", "time", "TIMESTAMP", True)
        bad = q.bad_value_sql("f[1]", "TIMESTAMP")
        self._sql = (
            f"select time, time_utc_offset, {partition_sql(partitioning)} as _partition, "  # type: ignore[arg-type]
            f"trim(f[1]) = '' or {bad} as bad from (select {', '.join(q.value_sql(col))}, f from "
            "(select [t] as f from times))"
        )

    def convert(self, text: pa.Array) -> tuple[pa.Array, pa.Array, pa.Array]:
        plain = plain_times(text) if self._plain else None
        return plain if plain is not None else self.convert_sql(text)

    def convert_sql(self, text: pa.Array) -> tuple[pa.Array, pa.Array, pa.Array]:
        times = pa.table({"t": text})
        self._con.register("times", times)
        out = self._con.sql(self._sql).to_arrow_table()
        self._con.unregister("times")
        bad = np.flatnonzero(out["bad"].to_numpy(zero_copy_only=False))
        if len(bad):
            raise NotClean(f"Time {text[int(bad[0])].as_py()!r} is not a timestamp")
        return (
            out["time"].combine_chunks(),
            out["time_utc_offset"].combine_chunks(),
            out["_partition"].combine_chunks(),
        )

    def close(self) -> None:
        self._con.close()


class _PartitionWriters:
    """One Parquet writer per partition under ``staging`` (``_partition=<key>/data_0.parquet``)."""

    FILE = "data_0.parquet"

    def __init__(self, staging: Path) -> None:
        self._staging = staging
        self._writers: dict[str, pq.ParquetWriter] = {}

    def write(self, key: str, table: pa.Table) -> None:
        writer = self._writers.get(key)
        if writer is None:
            folder = self._staging / f"{PARTITION_DIR_PREFIX}{key}"
            folder.mkdir(parents=True, exist_ok=True)
            writer = pq.ParquetWriter(
                folder / self.FILE, SCHEMA, write_batch_size=WRITE_BATCH,
                **writer_options(SCHEMA),
            )  # fmt: skip
            self._writers[key] = writer
        writer.write_table(table, row_group_size=PARQUET_ROW_GROUP)

    def write_all(self, tables: list[tuple[str, pa.Table]]) -> None:
        for key, table in tables:
            if table.num_rows:
                self.write(key, table)

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()


def _unpivot(batch: pa.RecordBatch) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """The non-empty cells of a block's value columns, series by series (each series' cells in line order):
    values, their column (0 = the first value column) and their line in the block.

    Series-major within a block (~340 lines), not line by line as the exact path unnests them: the lake
    does not promise a row order (content hashes and every reader are order-free), and this order makes
    ``series`` runs of one name (run-length encoded) and keeps a series' samples side by side, so the
    real-shaped Kalos GPU_UTIL's Parquet is about a third smaller (``series`` 3.4 MB a day to 0.1 MB)."""
    n = batch.num_rows
    columns = [(j, batch.column(j + 1)) for j in range(batch.num_columns - 1)]
    columns = [(j, c) for j, c in columns if c.null_count < n]  # all-empty columns hold nothing
    cells = np.empty((len(columns), n), dtype=np.float64)
    valid: np.ndarray | None = None
    for k, (_, column) in enumerate(columns):
        cells[k] = column.to_numpy(zero_copy_only=False)
        if column.null_count:
            if valid is None:
                valid = np.ones(cells.shape, dtype=bool)
            valid[k] = column.is_valid().to_numpy(zero_copy_only=False)
    index = np.fromiter((j for j, _ in columns), dtype=np.int32, count=len(columns))
    if valid is None:
        lines = np.tile(np.arange(n, dtype=np.int32), len(columns))
        return pa.array(cells.ravel()), np.repeat(index, n), lines
    series, lines = np.nonzero(valid)
    return pa.array(cells[valid]), index[series], lines.astype(np.int32)


class _LongTables:
    """Blocks of a wide file → long Arrow tables in the lake's schema, one per partition the block touches."""

    def __init__(self, src: WideFile, partitioning: str) -> None:
        self.src = src
        self.series = pa.array(src.header[1:], pa.string())
        self.loaded_at = np.datetime64(src.loaded_at.replace(" ", "T"), "us")
        self.times = _Times(partitioning)
        self.counters: dict[str, Counter] = {}  # partition key → the cells of its staged file
        self._zeros = np.zeros(0, dtype=np.int8)

    def tables(self, batch: pa.RecordBatch, first_line: int) -> tuple[int, list[tuple[str, pa.Table]]]:
        """The block's values (count) and their tables by partition key; ``first_line``: the line number of
        the block's first line in the file (header = 1)."""
        stamps, offset, part = self.times.convert(batch.column(0))
        part = pc.dictionary_encode(part)
        keys, codes = part.dictionary.to_pylist(), np.asarray(part.indices)
        if len(keys) == 1:
            table = self._table(keys[0], batch, stamps, offset, first_line)
            return table.num_rows, [(keys[0], table)]
        out = []
        for i, key in enumerate(keys):  # a block across midnight: each partition's lines apart
            lines = np.flatnonzero(codes == i)
            taken = pa.array(lines)
            table = self._table(
                key, batch.take(taken), stamps.take(taken), offset.take(taken), first_line, lines
            )
            out.append((key, table))
        return sum(t.num_rows for _, t in out), out

    def _table(
        self,
        key: str,
        batch: pa.RecordBatch,
        stamps: pa.Array,
        offset: pa.Array,
        first_line: int,
        lines: np.ndarray | None = None,
    ) -> pa.Table:
        """The long table of ``batch``'s lines in partition ``key`` (``lines``: their places in the block, when
        not all of it); their cells are counted in the partition's :class:`Counter`."""
        src, n = self.src, batch.num_rows
        values, cols, line = _unpivot(batch)
        m = len(values)
        if len(self._zeros) < m:
            self._zeros = np.zeros(max(m, 2 * len(self._zeros)), dtype=np.int8)
        places = lines if lines is not None else np.arange(n, dtype=np.int64)
        counter = self.counters.get(key)
        if counter is None:
            counter = Counter(src.cluster, src.metric, src.source_file, src.origin, self.series)
            self.counters[key] = counter
        counter.add(first_line + places, stamps, line, cols)
        line_index = pa.array(line)  # each value's line: the index into per-line dictionaries

        # Every index below is in its dictionary's range by construction (a line of the block, a column of
        # the header, 0), so Arrow's bounds check, a pass over every value each time, is skipped.
        def dictionary(indices: pa.Array, values: pa.Array) -> pa.DictionaryArray:
            return pa.DictionaryArray.from_arrays(indices, values, safe=False)

        def constant(value: str | np.datetime64, kind: pa.DataType = _STRING) -> pa.DictionaryArray:
            return dictionary(pa.array(self._zeros[:m]), pa.array([value], kind))

        offsets = pc.dictionary_encode(offset)  # "+08:00" on every line, as a rule
        return pa.table(
            [
                dictionary(line_index, stamps),  # a Time checked valid is never null
                constant(offsets.dictionary[0].as_py())
                if len(offsets.dictionary) == 1 and not offsets.indices.null_count
                else dictionary(pc.take(offsets.indices, line_index), offsets.dictionary),
                constant(src.cluster),
                constant(src.metric),
                dictionary(pa.array(cols), self.series),
                values,
                constant(src.source_file),
                dictionary(line_index, pa.array(first_line + places)),
                constant(self.loaded_at, pa.timestamp("us")),
                constant(src.origin),
            ],
            schema=SCHEMA,
        )

    def close(self) -> None:
        self.times.close()


def load_wide(src: WideFile, staging: Path, partitioning: str) -> FastResult:
    """Stage ``src``'s values under ``staging`` as the exact path would; raise NotClean when it cannot.

    The main thread takes parsed blocks from pyarrow's reader (which parses ahead on its own threads) and
    unpivots them; one more thread writes the previous block's Parquet meanwhile."""
    if src.origin not in ("real", "synthetic"):
        raise NotClean(f"origin {src.origin}: per-line real/synthetic ranges")
    names = [f"c{i}" for i in range(len(src.header))]
    convert = pacsv.ConvertOptions(
        column_types={"c0": pa.string(), **{n: pa.float64() for n in names[1:]}},
        null_values=[""], strings_can_be_null=False, quoted_strings_can_be_null=False,
    )  # fmt: skip
    header_lines = 0 if src.start else 1
    read = pacsv.ReadOptions(
        column_names=names, skip_rows=header_lines, block_size=BLOCK_BYTES, use_threads=True
    )
    parse = pacsv.ParseOptions(quote_char=False, double_quote=False, escape_char=False)
    long = _LongTables(src, partitioning)
    writers = _PartitionWriters(staging)
    timings = dict.fromkeys(("read", "unpivot", "write_wait"), 0.0)
    lines = written = 0
    pending: Future[None] | None = None
    try:
        with src.path.open("rb") as fh, ThreadPoolExecutor(1) as pool:
            fh.seek(src.start)
            counter = _CountingReader(fh)
            try:
                reader = pacsv.open_csv(
                    counter, read_options=read, parse_options=parse, convert_options=convert
                )
                clock = time.perf_counter()
                for batch in reader:
                    clock = _lap(timings, "read", clock)
                    m, slices = long.tables(batch, src.offset + lines + 2)
                    clock = _lap(timings, "unpivot", clock)
                    if pending is not None:
                        pending.result()
                    clock = _lap(timings, "write_wait", clock)
                    pending = pool.submit(writers.write_all, slices)
                    lines += batch.num_rows
                    written += m
            except pa.ArrowInvalid as exc:
                raise NotClean(str(exc).splitlines()[0]) from None
            if pending is not None:
                pending.result()
            _lap(timings, "write_wait", clock)
        physical = counter.breaks.lines() - header_lines
        if physical != lines:
            raise NotClean(f"{physical} data lines in the file, {lines} read (blank lines?)")
        writers.close()
        for key, cells in long.counters.items():
            if not cells.empty:  # a partition of empty lines has no data file
                cells.write(staging / f"{PARTITION_DIR_PREFIX}{key}" / _PartitionWriters.FILE)
    finally:
        writers.close()
        long.close()
    return FastResult(lines, written, {k: round(v, 3) for k, v in timings.items()})


def _lap(timings: dict[str, float], step: str, since: float) -> float:
    now = time.perf_counter()
    timings[step] += now - since
    return now
