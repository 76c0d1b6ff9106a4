"""Property-based tests of the loader on small CSV files in the dialects real files come in.

Each family's schema gets generated files: CRLF, LF or both mixed, a UTF-8 BOM, quoted fields with commas,
quotes and line breaks, trailing spaces and blank lines, a last line without a newline, and bad lines (a
NUL byte, a non-UTF-8 byte, a repeated header, a wrong field count, a value not of its type). The oracle is
Python's csv module: every record it reads is either loaded with the same values (numbered by the line the
record starts on) or rejected with a reason at that line, nothing else is loaded or rejected, and every
record generated good is loaded. For wide files the fast path agrees with the exact path wherever it takes
a file. Real DuckDB, real Parquet.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.families.registry import all_families, fixed_files
from pipelines.families.schemas import Column, FileSchema
from pipelines.families.upstream import UpstreamFile, discover_utilization
from pipelines.lake import csv_sql as q
from pipelines.lake.loader import SourceFile, load_file
from pipelines.settings import load_settings

FAST = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
TEXT = st.text(alphabet="ab Z,\"'\n;-é", min_size=0, max_size=8)
ENDINGS = st.sampled_from(["\n", "\r\n", "\n", "\r\n", "\r"])  # a lone CR now and then


def _good_value(col: Column, draw: st.DrawFn, partitioning: str) -> str:
    if col.type == "BIGINT":
        return str(draw(st.integers(-(10**6), 10**12)))
    if col.type == "DOUBLE":
        if col.raw_name == "timestamp_s":
            return repr(draw(st.floats(0, 10**7, allow_nan=False)))
        return draw(st.sampled_from(["0", "1.5", "-2.25", "1e3", "3", "0.1"]))
    if col.type == "TIMESTAMP":
        day = draw(st.integers(1, 28))
        hour = draw(st.integers(0, 23))
        offset = draw(st.sampled_from(["+08:00", "+00:00", ""]))
        return f"2023-03-{day:02d} {hour:02d}:15:00{offset}"
    value = draw(TEXT)
    return value + "x" if col.required and not value.strip() else value


@st.composite
def table_files(draw: st.DrawFn, schema: FileSchema, partitioning: str):
    """(file bytes, the line numbers of the records generated good)."""
    columns = [c for c in schema.columns if not c.optional or draw(st.booleans())]
    if not columns:
        columns = list(schema.columns[:2])
    header = [c.header for c in columns]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # fields holding CR or LF are quoted
    bom = "\ufeff" if draw(st.booleans()) else ""
    ending = draw(ENDINGS)
    mixed = draw(st.booleans())
    chunks: list[bytes] = []

    def line(text: str | bytes) -> None:
        data = text.encode() if isinstance(text, str) else text
        chunks.append(data + (draw(ENDINGS) if mixed else ending).encode())

    writer.writerow(header)
    line(bom + out.getvalue()[:-2])
    line_no, good = 1, []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["good"] * 5 + ["blank", "fields", "type", "nul", "header", "latin1"]))
        values = [_good_value(c, draw, partitioning) for c in columns]
        if kind == "fields":
            values.append("extra")
        elif kind == "type":
            typed = [i for i, c in enumerate(columns) if c.type != "VARCHAR"]
            if typed:
                values[draw(st.sampled_from(typed))] = "not-a-value"
            else:
                values.append("extra")
        elif kind == "header":
            values = header
        out.seek(0)
        out.truncate()
        writer.writerow(values)
        text = out.getvalue()[:-2]
        if kind == "blank":
            # an empty line after a lone CR would make that CR a CRLF: then it is a line of spaces
            text = "  " if chunks[-1].endswith(b"\r") else draw(st.sampled_from(["", "  "]))
        elif kind == "nul":
            # at the record's end: amid it, before a quoted field's opening quote, it would make that quote a
            # stray one that swallows the next lines (another kind of bad line)
            text += "\x00"
        line_no += 1
        if kind == "latin1":
            line(text.encode() + b",\xe9")
        else:
            line(text)
        if kind == "good":
            good.append(line_no)
        line_no += text.count("\n")
    data = b"".join(chunks)
    if draw(st.booleans()):
        data = data.rstrip(b"\r\n")  # the last line without a newline
    return data, good


def _records(data: bytes) -> tuple[list[tuple[int, list[str]]], int | None]:
    """(start line, fields) of every record Python's csv module reads (the header's included), and the start
    line of the last record when a quoted field of it is still open at the end of the file (csv reads the
    rest of the file into that field; the loader rejects that line and reads the following ones again)."""

    def read(strict: bool) -> list[tuple[int, list[str]]]:
        text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", errors="replace", newline="")
        reader = csv.reader(text, strict=strict)
        out, start = [], 1
        for fields in reader:
            out.append((start, fields))
            start = reader.line_num + 1
        return out

    records = read(strict=False)
    try:
        read(strict=True)
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            return records, records[-1][0]
    return records, None


def _same(value: object, text: str, col: Column | None) -> bool:
    text = text.replace("\r\n", "\n")
    kind = col.type if col else "VARCHAR"
    if kind == "VARCHAR":
        return value == (text or None)
    if text.strip() == "":
        return value is None
    if kind == "BIGINT":
        return value == int(text)
    if kind == "DOUBLE":
        return math.isclose(value, float(text))  # type: ignore[arg-type]
    stamp = datetime.fromisoformat(text.strip())
    if stamp.tzinfo is not None:
        stamp = stamp.astimezone(UTC).replace(tzinfo=None)
    return value == stamp


def _load(up: UpstreamFile, data: bytes, root: Path, *, fast: bool = True):
    path = root / up.file_name
    path.write_bytes(data)
    wh = load_settings({"WAREHOUSE_DIR": str(root / f"wh-{fast}")})
    sha = hashlib.sha256(data).hexdigest()
    state = load_file(wh, SourceFile(up, path, sha, "synthetic"), fast_wide=fast).state
    glob = wh.raw_dir / up.family / "_partition=*" / "*.parquet"
    rows = []
    if any((wh.raw_dir / up.family).glob("_partition=*/*.parquet")):
        rel = duckdb.sql(f"select * exclude (_loaded_at) from read_parquet('{glob}') order by all")
        rows = [dict(zip(rel.columns, r, strict=True)) for r in rel.fetchall()]
    rej = duckdb.sql(
        f"select line, reason from '{wh.rejects_dir / up.family}/*.parquet' order by line"
    ).fetchall()
    return state, rows, rej


def _one_upstream_per_table_schema() -> dict[str, UpstreamFile]:
    """A file of one family per table schema (families sharing a schema read alike)."""
    families = {f.key: f for f in all_families() if f.schema.layout == "table"}
    ups: dict[str, UpstreamFile] = {}
    schemas: list[FileSchema] = []
    for up in fixed_files():
        fam = families.get(up.family)
        if fam is not None and fam.schema not in schemas:
            schemas.append(fam.schema)
            ups[up.family] = up
    return ups


TABLE_UPSTREAMS = _one_upstream_per_table_schema()
FAMILIES = {f.key: f for f in all_families()}


@pytest.mark.parametrize("family_key", sorted(TABLE_UPSTREAMS))
def test_every_record_csv_reads_is_loaded_alike_or_rejected(family_key: str) -> None:
    fam = FAMILIES[family_key]
    up = TABLE_UPSTREAMS[family_key]

    @FAST
    @given(table_files(fam.schema, fam.partitioning))
    def check(generated: tuple[bytes, list[int]]) -> None:
        data, good = generated
        root = Path(tempfile.mkdtemp(prefix="prop-"))
        try:
            state, rows, rej = _load(up, data, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        ((_, header), *records), unclosed = _records(data)
        by_line = {r["_row_number"]: r for r in rows}
        rejected = {line: reason for line, reason in rej}
        assert len(by_line) == len(rows) and len(rejected) == len(rej), "one row or reject per line"
        assert not set(by_line) & set(rejected)
        assert (state.loaded, state.rejected) == (len(rows), len(rej))
        assert state.loaded + state.rejected == state.lines
        if unclosed is not None:
            assert rejected.get(unclosed) == q.UNCLOSED_REASON
            records = [(start, fields) for start, fields in records if start < unclosed]
            assert {start for start, _ in records} <= set(by_line) | set(rejected)
            assert min((set(by_line) | set(rejected)) - {start for start, _ in records}) == unclosed
        else:
            assert set(by_line) | set(rejected) == {start for start, _ in records}
            assert state.lines == len(records)
        assert set(good) <= set(by_line), f"good records rejected: {[(g, rejected.get(g)) for g in good]}"
        assert all(reason for reason in rejected.values())
        for start, fields in records:
            row = by_line.get(start)
            if row is None:
                continue
            assert len(fields) == len(header)
            for name, text in zip(header, fields, strict=True):
                col = fam.schema.column(name)
                key = col.raw_name if col else name.strip().lower().replace(" ", "_")
                assert _same(row[key], text, col), (start, name, row[key], text)

    check()


@st.composite
def wide_files(draw: st.DrawFn) -> bytes:
    series = draw(
        st.lists(
            st.sampled_from(["10.0.0.1-0", "10.0.0.1-1", "10.0.0.2-0", "n3"]),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    ending = draw(ENDINGS)
    mixed = draw(st.booleans())
    lines = [("\ufeff" if draw(st.booleans()) else "") + ",".join(["Time", *series])]
    for i in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["good"] * 6 + ["blank", "quoted", "nul", "header", "fields", "text"]))
        cells = [draw(st.sampled_from(["", "0", "12.5", "99", "1e-3"])) for _ in series]
        time = f"2023-07-19 {i:02d}:59:45+08:00"
        line = ",".join([time, *cells])
        if kind == "blank":
            line = ""
        elif kind == "quoted":
            line = ",".join([f'"{time}"', *cells])
        elif kind == "nul":
            line = ",".join([time, "\x00", *cells[1:]])
        elif kind == "header":
            line = lines[0].lstrip("\ufeff")
        elif kind == "fields":
            line += ",1"
        elif kind == "text":
            line = ",".join([time, "n/a", *cells[1:]])
        lines.append(line)
    data = b"".join((t + (draw(ENDINGS) if mixed else ending)).encode() for t in lines)
    return data.rstrip(b"\r\n") if draw(st.booleans()) else data


def test_wide_fast_path_agrees_with_exact_path() -> None:
    up = next(iter(discover_utilization(["data/utilization/seren/GPU_UTIL.csv"]).files))

    @FAST
    @given(wide_files())
    def check(data: bytes) -> None:
        root = Path(tempfile.mkdtemp(prefix="prop-wide-"))
        try:
            exact = _load(up, data, root, fast=False)
            fast = _load(up, data, root, fast=True)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        for state, _, rej in (exact, fast):
            assert state.loaded + state.rejected == state.lines
            assert all(reason for _, reason in rej)
        assert exact[1:] == fast[1:]
        (es, fs) = exact[0], fast[0]
        assert (es.lines, es.loaded, es.rejected, es.values, es.empty_cells) == (
            fs.lines, fs.loaded, fs.rejected, fs.values, fs.empty_cells,
        )  # fmt: skip
        records, unclosed = _records(data)
        assert unclosed is not None or es.lines == len(records) - 1

    check()
