"""Load one landed CSV file into the raw lake: typed rows into partitioned Parquet, bad lines into rejects.

Every data line of the file ends up in exactly one place — a row under ``lake/raw/<family>/`` or a reject
under ``lake/rejects/<family>/`` — and the counts are checked before anything is published:
``lines = loaded + rejected``. Work happens in an in-memory DuckDB (no lock on ``trace.duckdb``), staged
next to the lake and swapped in partition by partition (see ``lake.publish``). A file that only grew by
appended lines has just those parsed (``pipelines/lake/append.py``).
"""

from __future__ import annotations

import errno
import os
import shutil
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from pipelines.atomic_write import replacing
from pipelines.families.partition_keys import partition_sql
from pipelines.families.registry import family
from pipelines.families.schemas import FileSchema
from pipelines.families.upstream import UpstreamFile
from pipelines.lake import cells
from pipelines.lake import csv_sql as q
from pipelines.lake.append import add_parts, appended_at, write_tail
from pipelines.lake.dialect import prepare
from pipelines.lake.header import DiskFullError, LoadError, check_header, engine_error, read_header
from pipelines.lake.relation import PARTITION_DIR_PREFIX, partitioned_scan
from pipelines.lake.state import (
    FileLoadState,
    PartitionState,
    SwapResult,
    content_hash_sql,
    damaged_outputs,
    family_raw_dir,
    outputs_present,
    publish,
    read_state,
    rejects_path,
    write_state,
)
from pipelines.lake.wide_fast import COLUMNS as WIDE_COLUMNS
from pipelines.lake.wide_fast import NotClean, WideFile, load_wide
from pipelines.settings import Settings

PROVENANCE = ("_source_file", "_row_number", "_loaded_at", "_data_origin")
PARTITION_FLUSH_ROWS = 20_000  # rows a partitioned COPY buffers per partition before writing them
# Partition files a COPY keeps open at once (DuckDB's default); past it, partitions are split into several
# files, which the loader merges back (``_merge_split_partitions``).
MAX_OPEN_PARTITION_FILES = 100
REJECT_COLUMNS = "family, source_file, line, column_name, reason, raw_text, loaded_at"
_NO_REJECTS = (
    "cast(null as varchar) as family, cast(null as varchar) as source_file, cast(null as bigint) as line, "
    "cast(null as varchar) as column_name, cast(null as varchar) as reason, cast(null as varchar) as raw_text, "
    "cast(null as timestamp) as loaded_at where false"
)


# The reason of a line DuckDB's reader could not decode, in the project's words (not the engine's message).
_DECODE_REASON = (
    "case lower(cast(error_type as varchar)) "
    "when 'invalid encoding' then 'invalid encoding: the line is not UTF-8 (fix the byte, or re-encode the "
    "file as UTF-8)' "
    f"when 'line size over maximum' then 'line longer than {q.MAX_LINE_BYTES >> 20} MiB' "
    "else lower(cast(error_type as varchar)) || ': the CSV reader could not read this line' end"
)


@dataclass(frozen=True)
class SourceFile:
    """A landed file ready to load."""

    upstream: UpstreamFile
    path: Path
    sha256: str
    origin: str  # real | synthetic | mixed (from the mirror's MANIFEST.json)
    real_lines: Sequence[Sequence[int]] = ()


@dataclass
class LoadResult:
    state: FileLoadState
    swap: SwapResult | None  # None when the file was unchanged and nothing was done
    seconds: float
    mode: str  # unchanged | full (every line parsed) | append (only the lines appended since the last load)
    lines_parsed: int  # data lines this load read and parsed
    parser: str | None = None  # fast (a clean wide file, wide_fast) | exact (line by line in SQL) | None
    repaired: list[str] = field(default_factory=list)  # lake files found missing or damaged, rebuilt

    @property
    def skipped(self) -> bool:
        return self.swap is None


def _origin_sql(origin: str, real_lines: Sequence[Sequence[int]]) -> str:
    if origin in ("real", "synthetic"):
        return q.lit(origin)
    ranges = " or ".join(f"_row_number between {int(a)} and {int(b)}" for a, b in real_lines)
    return f"case when {ranges} then 'real' else 'synthetic' end" if ranges else "'synthetic'"


# The exact path's DuckDB sizes its memory for the whole machine: one exact parse at a time, however many
# files a family loads at once (pipelines/lake/family_load.py).
_EXACT_PARSE = threading.Lock()


def _scalar(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    """The single value of ``sql`` (DuckDB 2 wants every result fetched to the end)."""
    return int(con.execute(sql).fetchall()[0][0])


def _connect(settings: Settings) -> duckdb.DuckDBPyConnection:
    tmp = settings.warehouse_dir / ".tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(config={"temp_directory": str(tmp)})
    con.execute("set TimeZone = 'UTC'")
    con.execute("set preserve_insertion_order = true")  # csv_sql.LINES_TABLE numbers lines by insertion
    # A partitioned COPY buffers rows per open partition before writing; a low threshold keeps memory flat
    # as files grow (measured in benchmarks/: 1x -> 4x of a utilization file within 1.25x instead of 2.1x).
    con.execute(f"set partitioned_write_flush_threshold = {PARTITION_FLUSH_ROWS}")
    con.execute(f"set partitioned_write_max_open_files = {MAX_OPEN_PARTITION_FILES}")
    return con


def _merge_split_partitions(con: duckdb.DuckDBPyConnection, staging: Path) -> None:
    """One Parquet file per partition, as the lake keeps them: a partitioned COPY with more partitions than
    open files closes some and later starts a second file for them (BurstGPT_3 spans ~120 days). Such
    files are merged in write order."""
    for folder in sorted(staging.glob(f"{PARTITION_DIR_PREFIX}*")):
        files = sorted(folder.glob("*.parquet"), key=lambda p: (len(p.stem), p.stem))  # data_2 < data_10
        if len(files) < 2:
            continue
        paths = "[" + ", ".join(q.lit(str(p)) for p in files) + "]"
        target = folder / ".merged.parquet.tmp"
        con.execute(
            f"copy (select * from read_parquet({paths})) to {q.lit(str(target))} (format parquet, compression zstd)"
        )
        for path in files:
            path.unlink()
        target.rename(folder / "data_0.parquet")


def _table_select(src: SourceFile, schema: FileSchema, header: list[str], origin: str, loaded_at: str) -> str:
    bound = q.bind(header, schema)
    by_header = {b.header: b for b in bound}
    exprs: list[str] = []
    for col in schema.columns:  # schema columns first, in schema order, typed NULL when absent
        b = by_header.get(col.header)
        exprs += q.value_sql(b) if b else q.null_sql(col.raw_name, col.type)
    exprs += [expr for b in bound if schema.column(b.header) is None for expr in q.value_sql(b)]
    exprs += _provenance(src, origin, loaded_at)
    return "select " + ", ".join(exprs) + " from checked where _reason is null"


def _provenance(src: SourceFile, origin: str, loaded_at: str) -> list[str]:
    return [
        f"{q.lit(src.upstream.mirror_path)} as _source_file",
        "_row_number",
        f"timestamp {q.lit(loaded_at)} as _loaded_at",
        f"{origin} as _data_origin",
    ]


def _wide_select(src: SourceFile, header: list[str], origin: str, loaded_at: str) -> str:
    names = "[" + ", ".join(q.lit(h) for h in header) + "]"
    time_col = q.BoundColumn(1, "Time", "time", "TIMESTAMP", True)
    inner = (
        f"select _row_number, {', '.join(q.value_sql(time_col))}, unnest(f[2:]) as _cell, "
        f"unnest(range(2, {len(header) + 1})) as _col from checked where _reason is null"
    )
    return (
        f"select time, time_utc_offset, {q.lit(src.upstream.cluster or '')} as cluster, "
        f"{q.lit(src.upstream.metric or '')} as metric, {names}[_col] as series, "
        f"try_cast(trim(_cell) as double) as value, {', '.join(_provenance(src, origin, loaded_at))} "
        f"from ({inner}) where trim(_cell) <> ''"
    )


def _checked_cte(
    schema: FileSchema, header: list[str], shifted: bool, offset: int, joined: bool = False
) -> str:
    """The data lines of ``csv_sql.LINES_TABLE``, split into fields ``f``, with their reject reason and
    column (both NULL on a good line)."""
    numbered = q.numbered_lines_sql(shifted=shifted, offset=offset, joined=joined)
    parsed = (
        f"select line, _row_number, {q.fields_sql()} as f from ({numbered}) where _row_number > {1 + offset}"
    )
    if schema.layout == "wide":
        parsed = f"select *, {q.BAD_CELL_SQL} as _bad_cell from ({parsed})"
        reason, column = q.wide_reason_sql(header)
    else:
        reason, column = q.reason_sql(q.bind(header, schema), len(header), header)
    return f"with checked as (select *, {reason} as _reason, {column} as _reject_column from ({parsed}))"


def _staged_partitions(
    con: duckdb.DuckDBPyConnection, staging: Path, columns: list[str]
) -> list[PartitionState]:
    """Each staged partition's rows and content hash (``state.content_hash_sql``)."""
    sql = (
        f"select _partition, {content_hash_sql(columns)} "
        f"from {partitioned_scan(staging)} group by _partition order by _partition"
    )
    return [PartitionState(key, int(n), f"{n}:{x}:{s}") for key, n, x, s in con.execute(sql).fetchall()]


@dataclass
class _Parsed:
    """What parsing a file (or its appended tail) into a staging folder gave."""

    lines: int
    rejected: int  # rejects now in the file's rejects Parquet (kept ones included)
    written: int  # rows (values, for wide files) staged
    columns: list[list[str]]
    partitions: list[PartitionState]  # of the staged rows (after a tail: of the whole file, merged)
    parser: str = "exact"  # or "fast" (wide_fast)


def _parse(
    settings: Settings, src: SourceFile, staging: Path, loaded_at: str, header: list[str], *,
    offset: int = 0, start: int = 0, kept_rejects: Path | None = None, fast_wide: bool = True,
) -> _Parsed:  # fmt: skip
    """Parse ``src`` (the whole file, or the appended tail from byte ``start`` on, ``offset`` data lines before
    it) into partitioned Parquet under ``staging`` and its rejects into the file's rejects Parquet (after the
    rejects in ``kept_rejects``)."""
    fam = family(src.upstream.family)
    schema = fam.schema
    if schema.layout == "wide" and fast_wide:
        fast = _parse_wide_fast(settings, src, start, staging, loaded_at, header, offset, kept_rejects)
        if fast is not None:
            return fast
    with _EXACT_PARSE, _lines_from(settings, src, start) as read_path:
        return _parse_exact(settings, src, read_path, staging, loaded_at, header, offset, kept_rejects)


@contextmanager
def _lines_from(settings: Settings, src: SourceFile, start: int) -> Iterator[Path]:
    """The file to parse on the exact path: ``src`` itself, or a temp file of its header and the bytes from
    ``start`` on (an appended tail), removed afterwards."""
    if not start:
        yield src.path
        return
    name = f"{src.upstream.family}-{src.upstream.stem}-tail-{os.getpid()}.csv"
    tail_file = settings.warehouse_dir / ".tmp" / name
    tail_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        write_tail(src.path, start, tail_file)
        yield tail_file
    finally:
        tail_file.unlink(missing_ok=True)


def _parse_exact(
    settings: Settings, src: SourceFile, read_path: Path, staging: Path, loaded_at: str, header: list[str],
    offset: int, kept_rejects: Path | None,
) -> _Parsed:  # fmt: skip
    """:func:`_parse` on the exact path: every line split in SQL, each bad one a reject with its reason."""
    fam = family(src.upstream.family)
    schema = fam.schema
    copy = settings.warehouse_dir / ".tmp" / f"{fam.key}-{src.upstream.stem}-lines-{os.getpid()}.csv"
    con = _connect(settings)
    try:
        prepared = prepare(read_path, copy)
        joined = bool(prepared.spans)
        if joined:
            con.execute("create temp table _line_spans (gap bigint, shift bigint)")
            con.executemany("insert into _line_spans values (?, ?)", prepared.spans)
        con.execute(q.store_lines_sql(str(prepared.path)))
        n_decodable = _scalar(con, f"select count(*) from {q.LINES_TABLE}")
        undecodable = con.execute(q.encoding_rejects_sql(offset, joined)).fetchall()
        if undecodable:
            con.execute(q.LINE_GAPS_SQL)
        lines = n_decodable + len(undecodable) - 1  # the header is not a data line
        checked = _checked_cte(schema, header, bool(undecodable), offset, joined)
        origin = _origin_sql(src.origin, src.real_lines)
        body = (
            _wide_select(src, header, origin, loaded_at)
            if schema.layout == "wide"
            else _table_select(src, schema, header, origin, loaded_at)
        )
        select = f"{checked} select *, {partition_sql(fam.partitioning)} as _partition from ({body})"
        columns = [[r[0], r[1]] for r in con.execute(f"describe {select}").fetchall()]
        staging.mkdir(parents=True)
        written = _scalar(
            con,
            f"copy ({select}) to {q.lit(str(staging))} "
            "(format parquet, partition_by (_partition), compression zstd, overwrite_or_ignore true)",
        )
        # A line of a table file is one row or one reject: when every decodable data line became a row, the
        # rejects are the undecodable lines alone and the file is not parsed a second time to find them.
        parse_rejects = schema.layout == "wide" or written != n_decodable - 1
        rejected = _write_rejects(
            con, settings, src, checked if parse_rejects else None, loaded_at, offset, kept_rejects, joined
        )
        _merge_split_partitions(con, staging)
        if schema.layout == "wide":
            cells.count_staged(con, staging)
        partitions = _staged_partitions(con, staging, [c[0] for c in columns]) if written else []
    except duckdb.Error as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise _failure(settings, src.path, exc, offset) from None
    finally:
        con.close()
        copy.unlink(missing_ok=True)
    return _Parsed(lines, rejected, int(written), [c for c in columns if c[0] != "_partition"], partitions)


def _parse_wide_fast(
    settings: Settings, src: SourceFile, start: int, staging: Path, loaded_at: str, header: list[str],
    offset: int, kept_rejects: Path | None,
) -> _Parsed | None:  # fmt: skip
    """A clean wide file through ``wide_fast`` (same lake rows, hashes and state as the exact path, no new
    rejects); None when it is not clean (nothing staged: the exact path parses it)."""
    wide = WideFile(
        src.path, header, src.upstream.cluster or "", src.upstream.metric or "", src.upstream.mirror_path,
        src.origin, loaded_at, offset, start,
    )  # fmt: skip
    staging.mkdir(parents=True)
    try:
        result = load_wide(wide, staging, family(src.upstream.family).partitioning)
    except NotClean:
        shutil.rmtree(staging, ignore_errors=True)
        return None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    con = _connect(settings)
    try:
        rejected = _copy_rejects(con, settings, src, "", kept_rejects)
        columns = [c[0] for c in WIDE_COLUMNS]
        partitions = _staged_partitions(con, staging, columns) if result.written else []
    finally:
        con.close()
    return _Parsed(
        result.lines, rejected, result.written, [list(c) for c in WIDE_COLUMNS], partitions, "fast"
    )


def _parse_tail(
    settings: Settings, src: SourceFile, old: FileLoadState, staging: Path, loaded_at: str, header: list[str],
    fast_wide: bool,
) -> _Parsed | None:  # fmt: skip
    """When ``src`` is the file ``old`` recorded with whole lines appended: parse those lines, numbered after
    the file's ``old.lines``, and stage the partitions they touch. None (nothing staged) when it is not, or
    when the new lines do not give the columns the file had (its schema changed since): then the file is
    parsed whole."""
    appended = appended_at(old, src.path)
    if appended is None:
        return None
    at, before = appended
    rejects = rejects_path(settings, old.family, old.stem)
    try:
        tail = _parse(
            settings, src, staging, loaded_at, header, offset=before, start=at, kept_rejects=rejects,
            fast_wide=fast_wide,
        )  # fmt: skip
    except BaseException:
        rejects.unlink(missing_ok=True)  # it may hold the tail's rejects already: the next load parses whole
        raise
    if tail.columns != old.columns:
        shutil.rmtree(staging, ignore_errors=True)
        return None
    if tail.written:
        tail.partitions = add_parts(old, tail.partitions, staging)
    else:
        tail.partitions = old.partitions
    return tail


def _staging_dir(settings: Settings, family_key: str, stem: str) -> Path:
    return family_raw_dir(settings, family_key) / f".staging-{stem}-{os.getpid()}"


def _no_space(exc: BaseException) -> bool:
    """Whether ``exc`` (from Python, pyarrow or DuckDB) says the disk is full."""
    return getattr(exc, "errno", None) == errno.ENOSPC or "no space left on device" in str(exc).lower()


def _failure(settings: Settings, path: Path, exc: BaseException, offset: int = 0) -> LoadError:
    """The LoadError for an engine or OS error while ``path`` was loaded: disk full, or the engine's parser."""
    if _no_space(exc):
        return DiskFullError(
            path,
            f"disk full (no space left on device) while loading it into {settings.lake_dir}; nothing of this "
            "load was published: the lake keeps the files of the last load. Free space and re-run",
        )
    return engine_error(path, exc, offset)


def load_file(
    settings: Settings, src: SourceFile, *, force: bool = False, fast_wide: bool = True
) -> LoadResult:
    """Load ``src`` into the lake; a file already loaded with the same sha256 is left alone, and a file that
    only grew by whole lines appended to what was loaded has just those lines parsed. A wide file goes the
    fast path (``wide_fast``) when it is clean, else (or with ``fast_wide=False``) the exact path; both give
    the same lake rows, content hashes, state and rejects. A lake file of it that is missing or damaged
    (``damaged_outputs``) is rebuilt from the landed file (``LoadResult.repaired`` names them). An engine
    error is a LoadError naming the file and where; disk full is a DiskFullError."""
    try:
        return _load_file(settings, src, force=force, fast_wide=fast_wide)
    except (duckdb.Error, OSError) as exc:
        if isinstance(exc, OSError) and not _no_space(exc):
            raise
        shutil.rmtree(_staging_dir(settings, src.upstream.family, src.upstream.stem), ignore_errors=True)
        raise _failure(settings, src.path, exc) from None


def _load_file(settings: Settings, src: SourceFile, *, force: bool, fast_wide: bool) -> LoadResult:
    started = time.monotonic()
    fam = family(src.upstream.family)
    schema = fam.schema
    stem = src.upstream.stem
    old = read_state(settings, fam.key, stem)
    repaired: list[str] = []
    if old is not None:
        repaired = damaged_outputs(settings, old)
        for path in repaired:  # rebuilt below (their partitions are written whatever their recorded hash)
            Path(path).unlink(missing_ok=True)
    if not force and old is not None and old.sha256 == src.sha256 and outputs_present(settings, old):
        return LoadResult(old, None, time.monotonic() - started, "unchanged", 0)

    header = read_header(src.path)
    check_header(src.path, header, schema)
    loaded_at = datetime.now(UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")
    size = src.path.stat().st_size
    staging = _staging_dir(settings, fam.key, stem)
    shutil.rmtree(staging, ignore_errors=True)
    appendable = old is not None and not force and outputs_present(settings, old)
    tail = (
        _parse_tail(settings, src, old, staging, loaded_at, header, fast_wide) if appendable and old else None
    )
    if tail is not None and old is not None:
        parsed = _Parsed(
            old.lines + tail.lines, tail.rejected, tail.written, old.columns, tail.partitions, tail.parser
        )
        mode, kept_loaded, kept_rejected, kept_values = "append", old.loaded, old.rejected, old.values or 0
    else:
        parsed = tail = _parse(settings, src, staging, loaded_at, header, fast_wide=fast_wide)
        mode, kept_loaded, kept_rejected, kept_values = "full", 0, 0, 0

    tail_rejected = tail.rejected - kept_rejected
    if schema.layout == "wide":
        loaded = parsed.lines - parsed.rejected
        values = kept_values + tail.written
        empty = loaded * (len(header) - 1) - values
    else:
        loaded = kept_loaded + tail.written
        values, empty = None, None
        if tail.written + tail_rejected != tail.lines:
            shutil.rmtree(staging, ignore_errors=True)
            if mode == "append":  # its rejects now hold the tail's: the next load parses the file whole
                rejects_path(settings, fam.key, stem).unlink(missing_ok=True)
            raise LoadError(
                src.path,
                f"line counts do not reconcile: {tail.lines} lines parsed ({mode}), {tail.written} loaded, "
                f"{tail_rejected} rejected",
            )

    swap = publish(
        settings, fam.key, stem, staging, {p.key: p.content_hash for p in parsed.partitions},
        old.partition_hashes() if old else {},
    )  # fmt: skip
    state = FileLoadState(
        family=fam.key,
        mirror_path=src.upstream.mirror_path,
        stem=stem,
        sha256=src.sha256,
        data_origin=src.origin,
        lines=parsed.lines,
        loaded=loaded,
        rejected=parsed.rejected,
        loaded_at=loaded_at,
        columns=parsed.columns,
        partitions=parsed.partitions,
        values=values,
        empty_cells=empty,
        size=size,
    )
    write_state(settings, state)
    return LoadResult(state, swap, time.monotonic() - started, mode, tail.lines, tail.parser, repaired)


def _write_rejects(
    con: duckdb.DuckDBPyConnection, settings: Settings, src: SourceFile, checked: str | None, loaded_at: str,
    offset: int, kept: Path | None, joined: bool = False,
) -> int:  # fmt: skip
    """Write the file's rejects (after those in ``kept``, from an earlier load); returns how many it holds.
    ``checked``: the parsed lines (``_checked_cte``), None when none of them is a reject."""
    fam, path, at = (
        q.lit(src.upstream.family),
        q.lit(src.upstream.mirror_path),
        f"timestamp {q.lit(loaded_at)}",
    )
    parse_rejects = (
        f"{checked} select {fam} as family, {path} as source_file, _row_number as line, "
        f"_reject_column as column_name, _reason as reason, ltrim(line, chr(29)) as raw_text, {at} as loaded_at "
        "from checked where _reason is not null"
    )
    decode_rejects = (
        f"select {fam} as family, {path} as source_file, _row_number as line, cast(null as varchar) as column_name, "
        f"{_DECODE_REASON} as reason, raw_text, {at} as loaded_at from ({q.encoding_rejects_sql(offset, joined)})"
    )
    rejects = f"{parse_rejects} union all {decode_rejects}" if checked else decode_rejects
    return _copy_rejects(con, settings, src, rejects, kept)


def _copy_rejects(
    con: duckdb.DuckDBPyConnection, settings: Settings, src: SourceFile, rejects: str, kept: Path | None
) -> int:
    """Write the file's rejects Parquet: the ``rejects`` query (none when empty) after those in ``kept``."""
    parts = [rejects or f"select {_NO_REJECTS}"]
    if kept:
        parts.append(f"select {REJECT_COLUMNS} from read_parquet({q.lit(str(kept))})")
    with replacing(rejects_path(settings, src.upstream.family, src.upstream.stem)) as tmp:
        n = _scalar(
            con,
            f"copy ({' union all '.join(parts)} order by line) to {q.lit(str(tmp))} "
            "(format parquet, compression zstd)",
        )
    return int(n)
