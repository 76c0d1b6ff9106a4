"""The fast path for a clean wide utilization file: read once with pyarrow, unpivot in Arrow, write Parquet.

The exact path (``loader._parse``) splits every line in SQL so that any bad line becomes a reject with its
reason; on a 2,345-column file that moves ~3 MB/s on one core. A clean file needs none of that: pyarrow's
streaming CSV reader (both cores) parses it in blocks with ``Time`` as text and every other column as a
double, each block is unpivoted column by column (empty cells dropped) and written to one Parquet file per
date partition. Anything the fast path cannot prove clean — a field-count mismatch (a truncated or cut-off
last line), a cell that is not a number (a repeated header), a blank line (pyarrow skips those, so the rows
read fall short of the lines counted), an unparseable ``Time``, rows with real/synthetic line ranges — raises
:class:`NotClean`, and the loader parses the file on the exact path instead. When it succeeds the staged
lake rows are the ones the exact path would write (same columns, types and values; the content hashes and
load state are computed by the same code afterwards), and the file has no rejects.

Values that are the same on every row of a file (cluster, metric, source file, load time, origin) are written
as one-entry Parquet dictionaries (a run of zeros per row group), ``series`` as a dictionary of the header's
names, ``time``, its offset and ``_row_number`` as per-block dictionaries of the block's rows: nothing is
repeated per value in the file but the value itself.
"""

from __future__ import annotations

from collections.abc import Callable
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
from pipelines.lake.relation import PARTITION_DIR_PREFIX

BLOCK_BYTES = 32 << 20  # CSV bytes per parsed block (~2,700 rows of a 2,345-column file)
PARQUET_ROW_GROUP = 1 << 20
# The long layout of a wide file, as the exact path's SQL describes it (DuckDB types; the load state).
COLUMNS: list[list[str]] = [
    ["time", "TIMESTAMP"], ["time_utc_offset", "VARCHAR"], ["cluster", "VARCHAR"], ["metric", "VARCHAR"],
    ["series", "VARCHAR"], ["value", "DOUBLE"], ["_source_file", "VARCHAR"], ["_row_number", "BIGINT"],
    ["_loaded_at", "TIMESTAMP"], ["_data_origin", "VARCHAR"],
]  # fmt: skip
_CONSTANT = pa.dictionary(pa.int8(), pa.string())
SCHEMA = pa.schema(
    [
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
    offset: int = 0  # data lines before the first line of ``path`` (an appended tail)


@dataclass
class FastResult:
    lines: int  # data lines read (every one loaded: the fast path has no rejects)
    written: int  # values written


class _CountingReader:
    """A binary file that counts the newlines pyarrow reads through it and remembers the last byte."""

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh = fh
        self.newlines = 0
        self.last = b""
        self.closed = False

    def read(self, n: int = -1) -> bytes:
        data = self._fh.read(n)
        if data:
            self.newlines += data.count(b"\n")
            self.last = data[-1:]
        return data

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self.closed = True


def _constant(value: str | np.datetime64, n: int, zeros: np.ndarray) -> pa.DictionaryArray:
    dictionary = pa.array(
        [value], type=pa.timestamp("us") if isinstance(value, np.datetime64) else pa.string()
    )
    return pa.DictionaryArray.from_arrays(pa.array(zeros[:n]), dictionary)


class _Times:
    """``Time`` strings → timestamp, UTC offset and partition key, by the exact path's own SQL expressions."""

    def __init__(self, partitioning: str) -> None:
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

    def __init__(self, staging: Path) -> None:
        self._staging = staging
        self._writers: dict[str, pq.ParquetWriter] = {}

    def write(self, key: str, table: pa.Table) -> None:
        writer = self._writers.get(key)
        if writer is None:
            folder = self._staging / f"{PARTITION_DIR_PREFIX}{key}"
            folder.mkdir(parents=True, exist_ok=True)
            writer = pq.ParquetWriter(
                folder / "data_0.parquet", SCHEMA, compression="zstd", write_statistics=["time"],
                use_dictionary=True,
            )  # fmt: skip
            self._writers[key] = writer
        writer.write_table(table, row_group_size=PARQUET_ROW_GROUP)

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()


def _unpivot(batch: pa.RecordBatch) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """The non-empty cells of a block's value columns in line order (as the exact path unnests them):
    values, their column (0 = the first value column), and how many each line of the block has."""
    n = batch.num_rows
    columns = [(j, batch.column(j + 1)) for j in range(batch.num_columns - 1)]
    columns = [(j, c) for j, c in columns if c.null_count < n]  # all-empty columns hold nothing
    cells = np.empty((n, len(columns)), dtype=np.float64)
    valid: np.ndarray | None = None
    for k, (_, column) in enumerate(columns):
        cells[:, k] = column.to_numpy(zero_copy_only=False)
        if column.null_count:
            if valid is None:
                valid = np.ones(cells.shape, dtype=bool)
            valid[:, k] = column.is_valid().to_numpy(zero_copy_only=False)
    index = np.fromiter((j for j, _ in columns), dtype=np.int32, count=len(columns))
    if valid is None:
        return pa.array(cells.ravel()), np.tile(index, n), np.full(n, len(columns), dtype=np.int64)
    return pa.array(cells[valid]), np.broadcast_to(index, cells.shape)[valid], valid.sum(axis=1)


def _repeat(codes: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each line's code once per value of the line (a broadcast when every line has as many values)."""
    if len(counts) and (counts == counts[0]).all():
        return np.broadcast_to(codes[:, None], (len(codes), int(counts[0]))).ravel()
    return np.repeat(codes, counts)


def load_wide(
    src: WideFile, staging: Path, partitioning: str, say: Callable[[str], None] | None = None
) -> FastResult:
    """Stage ``src``'s values under ``staging`` as the exact path would; raise NotClean when it cannot."""
    if src.origin not in ("real", "synthetic"):
        raise NotClean(f"origin {src.origin}: per-line real/synthetic ranges")
    width = len(src.header)
    names = [f"c{i}" for i in range(width)]
    series = pa.array(src.header[1:], pa.string())
    convert = pacsv.ConvertOptions(
        column_types={"c0": pa.string(), **{n: pa.float64() for n in names[1:]}},
        null_values=[""], strings_can_be_null=False, quoted_strings_can_be_null=False,
    )  # fmt: skip
    read = pacsv.ReadOptions(column_names=names, skip_rows=1, block_size=BLOCK_BYTES, use_threads=True)
    parse = pacsv.ParseOptions(
        quote_char=False, double_quote=False, escape_char=False, newlines_in_values=False
    )
    loaded_at = np.datetime64(src.loaded_at.replace(" ", "T"), "us")
    zeros = np.zeros(0, dtype=np.int8)
    times = _Times(partitioning)
    writers = _PartitionWriters(staging)
    lines = written = 0
    pending: Future[None] | None = None
    try:
        with src.path.open("rb") as fh, ThreadPoolExecutor(1) as pool:
            counter = _CountingReader(fh)
            try:
                reader = pacsv.open_csv(
                    counter, read_options=read, parse_options=parse, convert_options=convert
                )
                for batch in reader:
                    n = batch.num_rows
                    time, offset, part = times.convert(batch.column(0))
                    values, cols, counts = _unpivot(batch)
                    m = len(values)
                    if len(zeros) < m:
                        zeros = np.zeros(max(m, 2 * len(zeros)), dtype=np.int8)
                    time_dict = pc.dictionary_encode(time)
                    offset_dict = pc.dictionary_encode(offset)
                    part_dict = pc.dictionary_encode(part)
                    row_numbers = np.arange(n, dtype=np.int64) + (src.offset + lines + 2)

                    def per_value(codes: pa.Array, counts: np.ndarray = counts) -> pa.Array:
                        return pa.array(_repeat(codes.to_numpy(zero_copy_only=False), counts))

                    table = pa.table(
                        [
                            pa.DictionaryArray.from_arrays(
                                per_value(time_dict.indices), time_dict.dictionary
                            ),
                            pa.DictionaryArray.from_arrays(
                                per_value(offset_dict.indices), offset_dict.dictionary
                            ),
                            _constant(src.cluster, m, zeros),
                            _constant(src.metric, m, zeros),
                            pa.DictionaryArray.from_arrays(pa.array(cols), series),
                            values,
                            _constant(src.source_file, m, zeros),
                            pa.DictionaryArray.from_arrays(
                                per_value(pa.array(np.arange(n, dtype=np.int32))), pa.array(row_numbers)
                            ),
                            _constant(loaded_at, m, zeros),
                            _constant(src.origin, m, zeros),
                        ],
                        schema=SCHEMA,
                    )
                    keys = part_dict.dictionary.to_pylist()
                    if len(keys) == 1:
                        slices = [(keys[0], table)]
                    else:
                        value_part = _repeat(part_dict.indices.to_numpy(zero_copy_only=False), counts)
                        slices = [(k, table.filter(pa.array(value_part == i))) for i, k in enumerate(keys)]
                    if pending is not None:
                        pending.result()
                    pending = pool.submit(_write_all, writers, slices)
                    lines += n
                    written += m
            except pa.ArrowInvalid as exc:
                raise NotClean(str(exc).splitlines()[0]) from None
            if pending is not None:
                pending.result()
        physical = counter.newlines + (1 if counter.last not in (b"", b"\n") else 0) - 1
        if physical != lines:
            raise NotClean(f"{physical} data lines in the file, {lines} read (blank lines?)")
    finally:
        writers.close()
        times.close()
    if say:
        say(f"{src.source_file}: fast path, {lines:,} lines, {written:,} values")
    return FastResult(lines, written)


def _write_all(writers: _PartitionWriters, slices: list[tuple[str, pa.Table]]) -> None:
    for key, table in slices:
        if table.num_rows:
            writers.write(key, table)
