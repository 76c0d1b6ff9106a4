"""The fast path for wide utilization files gives what the exact path gives, or hands the file to it.

Real-shaped SYNTHETIC sample files (Kalos GPU_UTIL at its real width, 293 nodes × 8 GPUs = 2,345 columns;
the other quirky metrics at the default width) are loaded twice into separate warehouses: once on the exact
path (``fast_wide=False``: every line split and checked in SQL) and once as the loader chooses. Lake rows,
partition content hashes, load state and rejects must be identical (the load time aside). Files with a bad
line — a truncated last line, a non-numeric cell, a repeated header mid-file, a blank line, a file cut off
mid-download — must leave the fast path and be loaded exactly, every line accounted for.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from pathlib import Path

import duckdb
import pytest

from pipelines.families.upstream import UpstreamFile, discover_utilization
from pipelines.lake import cells
from pipelines.lake.loader import LoadResult, SourceFile, load_file
from pipelines.lake.parquet_files import WITH_STATISTICS
from pipelines.lake.wide_fast import COLUMNS
from pipelines.sample import generate_sample
from pipelines.settings import Settings, load_settings

UTIL = "huggingface/datasets/Qinghao/AcmeTrace/data/utilization"
REAL_WIDTH_LINES = 160  # the first lines of the real-width file (the exact path splits ~3 MB/s)
QUIRKY = ("kalos/SM_ACTIVE", "seren/NODE_MEMORY_UTILIZATION", "seren/GPU_UTIL", "kalos/DRAM_ACTIVE",
          "kalos/NODE_CPU_UTILIZATION", "seren/NODE_IB_SEND")  # fmt: skip


@pytest.fixture(scope="module")
def real_width(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The head of a SYNTHETIC Kalos GPU_UTIL at the real width (2,345 columns)."""
    out = tmp_path_factory.mktemp("real-width")
    generate_sample(out, util_nodes=293, util_days=1, utilization_only=["kalos/GPU_UTIL"])
    lines = (out / UTIL / "kalos" / "GPU_UTIL.csv").read_bytes().splitlines(keepends=True)
    head = out / "GPU_UTIL.csv"
    head.write_bytes(b"".join(lines[:REAL_WIDTH_LINES]))
    return head


@pytest.fixture(scope="module")
def quirky(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("quirky")
    generate_sample(out, util_nodes=4, util_days=1, utilization_only=list(QUIRKY))
    return out


def _upstream(mirror_path: str) -> UpstreamFile:
    (up,) = discover_utilization(["data/utilization/" + mirror_path.removeprefix(f"{UTIL}/")]).files
    return up


def _load(settings: Settings, up: UpstreamFile, path: Path, *, fast: bool) -> LoadResult:
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    return load_file(settings, SourceFile(up, path, sha, "synthetic"), fast_wide=fast)


def _settings(root: Path) -> Settings:
    return load_settings(overrides={"WAREHOUSE_DIR": str(root)})


def _rows(settings: Settings, family: str, what: str) -> duckdb.DuckDBPyRelation:
    folder = settings.raw_dir if what == "raw" else settings.rejects_dir
    glob = f"{folder / family}/_partition=*/*.parquet" if what == "raw" else f"{folder / family}/*.parquet"
    return duckdb.sql(
        f"select * exclude ({'_loaded_at' if what == 'raw' else 'loaded_at'}) from read_parquet('{glob}'"
        + (", hive_partitioning=true, hive_types={'_partition': 'VARCHAR'})" if what == "raw" else ")")
    )


def _cells(settings: Settings, family: str, kind: str) -> list[tuple]:
    glob = f"{cells.cells_dir(settings, family, kind)}/_partition=*/*.parquet"
    scan = f"read_parquet('{glob}', hive_partitioning=true, hive_types={{'_partition': 'VARCHAR'}})"
    # a series of a file held in parts (an appended tail) has a count in each part
    rows = duckdb.sql(
        f"select * exclude (cells, _partition), sum(cells), _partition from {scan} group by all"
    )
    return sorted(rows.fetchall(), key=repr)


def _assert_cells_count_the_rows(settings: Settings, family: str) -> None:
    """The load's cell counts are the lake rows counted by line and by series, file by file."""
    counted = {
        "lines": ("cluster, metric, _source_file, _row_number", "any_value(time), any_value(_data_origin), "),
        "series": ("cluster, metric, _source_file, series", ""),
    }
    for kind, (keys, values) in counted.items():
        expected = _rows(settings, family, "raw").query(
            "r", f"select {keys}, {values}count(*), _partition from r group by {keys}, _partition"
        )
        assert _cells(settings, family, kind) == sorted(expected.fetchall(), key=repr), kind


def _assert_same(exact: Settings, fast: Settings, a: LoadResult, b: LoadResult, family: str) -> None:
    sa, sb = asdict(a.state), asdict(b.state)
    sa.pop("loaded_at"), sb.pop("loaded_at")
    assert sa == sb
    assert a.state.lines == a.state.loaded + a.state.rejected
    for what in ("raw", "rejects"):
        if what == "raw" and not a.state.partitions:
            continue
        ra, rb = _rows(exact, family, what), _rows(fast, family, what)
        assert ra.types == rb.types and ra.columns == rb.columns
        ta, tb = ra.fetchall(), rb.fetchall()
        assert len(ta) == len(tb)
        assert sorted(map(repr, ta)) == sorted(map(repr, tb))
    if a.state.partitions:
        _assert_cells_count_the_rows(exact, family)
        for kind in cells.KINDS:
            assert _cells(exact, family, kind) == _cells(fast, family, kind)


def _columns_where(
    settings: Settings, family: str, condition: str, files: str = "*.parquet", table: str = "parquet_metadata"
) -> set[str]:
    """The columns for which ``condition`` holds in every row of ``table`` (``parquet_metadata``: a row
    group's column; ``parquet_schema``: a file's column) over every lake file of ``family`` named like
    ``files``."""
    glob = f"{settings.raw_dir / family}/_partition=*/{files}"
    name, leaves = (
        ("path_in_schema", "") if table == "parquet_metadata" else ("name", "where num_children is null ")
    )
    rows = duckdb.sql(
        f"select {name}, bool_and({condition}) from {table}('{glob}') {leaves}group by all"
    ).fetchall()
    return {column for column, holds in rows if holds}


def _delta_encoded(settings: Settings, family: str, files: str = "*.parquet") -> set[str]:
    """The columns every lake file of ``family`` (named like ``files``) stores delta-encoded."""
    return _columns_where(settings, family, "encodings like '%DELTA_BINARY_PACKED%'", files)


def _with_statistics(settings: Settings, family: str) -> set[str]:
    """The columns whose min/max every row group of ``family``'s lake files records."""
    return _columns_where(settings, family, "stats_min_value is not null and stats_max_value is not null")


def _required(settings: Settings, family: str) -> set[str]:
    """The columns every lake file of ``family`` declares required (a value on every row)."""
    return _columns_where(settings, family, "repetition_type = 'REQUIRED'", table="parquet_schema")


def _compare(tmp_path: Path, up: UpstreamFile, path: Path) -> tuple[LoadResult, LoadResult]:
    exact, fast = _settings(tmp_path / "exact"), _settings(tmp_path / "fast")
    a = _load(exact, up, path, fast=False)
    b = _load(fast, up, path, fast=True)
    assert a.parser == "exact"
    _assert_same(exact, fast, a, b, up.family)
    return a, b


def test_real_width_file_takes_the_fast_path_with_identical_results(real_width: Path, tmp_path: Path) -> None:
    up = _upstream(f"{UTIL}/kalos/GPU_UTIL.csv")
    a, b = _compare(tmp_path, up, real_width)
    assert b.parser == "fast"
    assert len(a.state.columns) == 10 and a.state.rejected == 0
    assert a.state.lines == REAL_WIDTH_LINES - 1 and a.state.values == b.state.values > 0
    # a series' times and line numbers step evenly: the fast path stores them as deltas, not dictionaries
    assert _delta_encoded(_settings(tmp_path / "fast"), up.family) == {"time", "_row_number"}
    # a filter on time, line, cluster, metric, file or value skips row groups by their min/max; series has
    # none (every row group holds every series)
    assert _with_statistics(_settings(tmp_path / "fast"), up.family) == set(WITH_STATISTICS)
    # every column but the UTC offset holds a value on every row, and the file says so (no definition levels)
    assert _required(_settings(tmp_path / "fast"), up.family) == {c for c, _ in COLUMNS} - {"time_utc_offset"}


@pytest.mark.parametrize("name", QUIRKY)
def test_quirky_metric_files_are_identical(quirky: Path, tmp_path: Path, name: str) -> None:
    cluster, metric = name.split("/")
    path = sorted((quirky / UTIL / cluster).glob(f"{metric}*.csv"))[0]  # a split metric: its first piece
    up = _upstream(path.relative_to(quirky).as_posix())
    a, b = _compare(tmp_path, up, path)
    assert b.parser == "fast"
    assert a.state.empty_cells == b.state.empty_cells


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _truncated_last_line(path: Path) -> bytes:
    lines = _lines(path)
    return b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2]


def _non_numeric_cell(path: Path) -> bytes:
    lines = _lines(path)
    cells = lines[50].split(b",")
    cells[7] = b"n/a"
    lines[50] = b",".join(cells)
    return b"".join(lines)


def _repeated_header(path: Path) -> bytes:
    lines = _lines(path)
    return b"".join([*lines[:100], lines[0], *lines[100:]])


def _blank_line(path: Path) -> bytes:
    lines = _lines(path)
    return b"".join([*lines[:30], b"\n", *lines[30:]])


def _cut_off(path: Path) -> bytes:
    data = path.read_bytes()
    return data[: int(len(data) * 0.61)]


BAD = {
    "truncated_last_line": (_truncated_last_line, "expected 2345 fields"),
    "non_numeric_cell": (_non_numeric_cell, "is not a number"),
    "repeated_header": (_repeated_header, "the header line again"),
    "blank_line": (_blank_line, "empty line"),
    "cut_off_mid_download": (_cut_off, "expected 2345 fields"),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_lines_fall_back_to_the_exact_path(real_width: Path, tmp_path: Path, case: str) -> None:
    make, reason = BAD[case]
    path = tmp_path / "GPU_UTIL.csv"
    path.write_bytes(make(real_width))
    up = _upstream(f"{UTIL}/kalos/GPU_UTIL.csv")
    a, b = _compare(tmp_path, up, path)
    assert b.parser == "exact"  # the fast path gave it up: nothing of its attempt is left
    assert a.state.rejected == 1
    (reject,) = _rows(_settings(tmp_path / "fast"), up.family, "rejects").fetchall()
    assert reason in reject[4] and reject[1] == up.mirror_path


def test_appended_tail_is_identical(real_width: Path, tmp_path: Path) -> None:
    """A file that grew by whole lines: the tail goes the fast path too, after a first load with a reject."""
    up = _upstream(f"{UTIL}/kalos/GPU_UTIL.csv")
    lines = _non_numeric_cell(real_width).splitlines(keepends=True)
    first, grown = tmp_path / "first.csv", tmp_path / "GPU_UTIL.csv"
    first.write_bytes(b"".join(lines[:80]))
    grown.write_bytes(b"".join(lines))
    results = {}
    for mode, fast in (("exact", False), ("fast", True)):
        settings = _settings(tmp_path / mode)
        _load(settings, up, first, fast=fast)
        results[mode] = (settings, _load(settings, up, grown, fast=fast))
    (exact, a), (fast_settings, b) = results["exact"], results["fast"]
    assert a.mode == b.mode == "append" and b.parser == "fast"
    _assert_same(exact, fast_settings, a, b, up.family)
    # the tail is a part of its own, written as the fast path writes (the first load went the exact path)
    assert _delta_encoded(fast_settings, up.family, "*~1.parquet") == {"time", "_row_number"}
    assert a.state.rejected == 1 and a.state.lines == len(lines) - 1


def test_lines_without_a_cell_load_identically(tmp_path: Path) -> None:
    """Lines whose cells are all empty (idle GPUs) load no value and write no lake file or cell counts, on
    either path."""
    path = tmp_path / "GPU_UTIL.csv"
    path.write_bytes(b"Time,10.0.0.1-0\n2023-07-19 00:59:45+08:00,\n2023-07-19 01:00:00+08:00,\n")
    up = _upstream(f"{UTIL}/kalos/GPU_UTIL.csv")
    a, b = _compare(tmp_path, up, path)
    assert b.parser == "fast" and a.state.lines == 2 and a.state.values == 0
    assert not any(cells.cells_dir(_settings(tmp_path / "fast"), up.family, "lines").parent.glob("*/*/*"))
