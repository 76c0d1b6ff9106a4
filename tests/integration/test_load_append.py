"""A file that grew by appended lines: only the new lines are parsed, and the lake equals a full reload.

Real DuckDB, real files. Each case loads a file, changes it, loads it again, and compares the lake, the
rejects and the recorded state with a second warehouse that loaded the changed file from scratch.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pytest

from pipelines.families.registry import fixed_files
from pipelines.families.upstream import UpstreamFile, discover_utilization
from pipelines.lake.loader import LoadResult, SourceFile, load_file
from pipelines.lake.state import FileLoadState, partition_dir, read_state
from pipelines.settings import Settings, load_settings
from tests.conftest import REAL_DIR

BURST = "burstgpt__requests"
BURST_HEADER = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"


def burstgpt_2() -> UpstreamFile:
    return next(f for f in fixed_files() if f.file_name == "BurstGPT_2.csv")


def load(settings: Settings, up: UpstreamFile, path: Path) -> LoadResult:
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    return load_file(settings, SourceFile(up, path, sha, "synthetic"))


def fresh(tmp_path: Path, name: str) -> Settings:
    root = tmp_path / name
    return load_settings({"WAREHOUSE_DIR": str(root), "DAGSTER_HOME": str(root / ".dagster")})


def lake_rows(settings: Settings, family: str) -> list[tuple]:
    """Every raw row with its partition, without ``_loaded_at`` (the time of the load that wrote it)."""
    glob = settings.raw_dir / family / "_partition=*" / "*.parquet"
    rel = duckdb.sql(
        f"select * exclude (_loaded_at) from read_parquet('{glob}', hive_partitioning=true, "
        "hive_types={'_partition': 'VARCHAR'}) order by all"
    )
    return rel.fetchall()


def reject_rows(settings: Settings, family: str) -> list[tuple]:
    return duckdb.sql(
        f"select * exclude (loaded_at) from '{settings.rejects_dir / family}/*.parquet' order by line"
    ).fetchall()


def assert_equals_full_reload(
    settings: Settings, up: UpstreamFile, path: Path, tmp_path: Path, name: str = "reloaded"
) -> None:
    family = up.family
    other = fresh(tmp_path, name)
    load(other, up, path)
    assert lake_rows(settings, family) == lake_rows(other, family)
    assert reject_rows(settings, family) == reject_rows(other, family)
    mine, theirs = read_state(settings, family, up.stem), read_state(other, family, up.stem)
    assert mine is not None and theirs is not None
    for field in ("sha256", "lines", "loaded", "rejected", "columns", "values", "empty_cells", "size"):
        assert getattr(mine, field) == getattr(theirs, field), field
    # the same partitions and content; an append's partitions may hold parts where a full load has one file
    assert partition_totals(mine) == partition_totals(theirs)
    for p in mine.partitions:
        files = p.files(mine.stem)
        assert sum(f.rows for f in files) == p.rows
        on_disk = sorted(f.name for f in partition_dir(settings, family, p.key).glob(f"{up.stem}*.parquet"))
        assert on_disk == sorted(f.file for f in files)


def partition_totals(state: FileLoadState) -> list[tuple[str, int, str]]:
    return [(p.key, p.rows, p.content_hash) for p in state.partitions]


def request_lines(day: int, n: int, start: int = 0) -> list[str]:
    return [
        f"{day * 86_400 + start + i},ChatGPT,{10 + i},{i},{10 + 2 * i},Conversation log" for i in range(n)
    ]


def test_one_day_appended_parses_only_its_lines(warehouse: Settings, tmp_path: Path) -> None:
    """The BurstGPT refresh case: day 1 gains rows, day 2 is new, day 0 is not touched."""
    up = burstgpt_2()
    base = request_lines(0, 50) + request_lines(1, 30)
    path = tmp_path / "BurstGPT_2.csv"
    path.write_text("\n".join([BURST_HEADER, *base]) + "\n")
    first = load(warehouse, up, path)
    assert first.mode == "full" and first.lines_parsed == 80
    day0 = partition_dir(warehouse, BURST, "0000") / "BurstGPT_2.parquet"
    day1 = partition_dir(warehouse, BURST, "0001") / "BurstGPT_2.parquet"
    day0_bytes, day1_bytes = day0.read_bytes(), day1.read_bytes()

    appended = [*request_lines(1, 20, start=30), "17,ChatGPT,1,x,2,API log", *request_lines(2, 40), ""]
    with path.open("a") as fh:
        fh.write("\n".join(appended) + "\n")
    second = load(warehouse, up, path)

    assert second.mode == "append"
    assert second.lines_parsed == len(appended)  # the load's own counter: the 80 old lines were not read
    assert second.swap is not None
    assert (second.swap.written, second.swap.unchanged) == (["0001", "0002"], ["0000"])
    assert day0.read_bytes() == day0_bytes
    assert day1.read_bytes() == day1_bytes  # day 1's new rows are a part of their own: nothing rewritten
    (part,) = partition_dir(warehouse, BURST, "0001").glob("BurstGPT_2~*.parquet")
    assert part.name == "BurstGPT_2~1.parquet" and duckdb.sql(
        f"select count(*) from '{part}'"
    ).fetchall() == [(20,)]
    st = second.state
    assert (st.lines, st.loaded, st.rejected) == (80 + 62, 80 + 60, 2)
    numbers = duckdb.sql(
        f"select _row_number from '{warehouse.raw_dir / BURST}/*/*.parquet' order by _row_number"
    ).fetchall()
    assert [n for (n,) in numbers] == list(range(2, 82)) + list(range(82, 102)) + list(range(103, 143))
    assert [(r[2], r[4]) for r in reject_rows(warehouse, BURST)] == [
        (102, "column Response tokens: 'x' is not an integer"),
        (143, "empty line"),
    ]
    assert_equals_full_reload(warehouse, up, path, tmp_path)


def test_real_rows_appended_in_two_steps(warehouse: Settings, tmp_path: Path) -> None:
    """The real BurstGPT rows, first 150 lines then the rest: the same lake as loading all 400 at once."""
    up = burstgpt_2()
    real = (REAL_DIR / "burstgpt_1_first400.csv").read_bytes()
    lines = real.splitlines(keepends=True)
    path = tmp_path / "BurstGPT_2.csv"
    path.write_bytes(b"".join(lines[:151]))
    load(warehouse, up, path)
    path.write_bytes(real)
    result = load(warehouse, up, path)
    assert (result.mode, result.lines_parsed, result.state.loaded) == ("append", 250, 400)
    assert_equals_full_reload(warehouse, up, path, tmp_path)


def test_parts_add_up_and_a_whole_parse_replaces_them(warehouse: Settings, tmp_path: Path) -> None:
    """Two appends to one partition give it two parts; a change that is not an append parses the file whole
    and leaves one file per partition again (no part of the old load stays behind)."""
    up = burstgpt_2()
    path = tmp_path / "BurstGPT_2.csv"
    path.write_text("\n".join([BURST_HEADER, *request_lines(0, 10)]) + "\n")
    load(warehouse, up, path)
    for start in (10, 20):
        with path.open("a") as fh:
            fh.write("\n".join(request_lines(0, 10, start=start)) + "\n")
        assert load(warehouse, up, path).mode == "append"
    day0 = partition_dir(warehouse, BURST, "0000")
    assert sorted(p.name for p in day0.glob("*.parquet")) == [
        "BurstGPT_2.parquet", "BurstGPT_2~1.parquet", "BurstGPT_2~2.parquet",
    ]  # fmt: skip
    assert_equals_full_reload(warehouse, up, path, tmp_path)

    (day0 / "BurstGPT_2~1.parquet").unlink()  # a part lost: the file is parsed whole, into one file again
    repaired = load(warehouse, up, path)
    assert repaired.repaired and [p.name for p in day0.glob("*.parquet")] == ["BurstGPT_2.parquet"]
    assert_equals_full_reload(warehouse, up, path, tmp_path, "reloaded-repaired")

    path.write_text("\n".join([BURST_HEADER, *request_lines(0, 5)]) + "\n")  # shorter: parsed whole
    assert load(warehouse, up, path).mode == "full"
    assert [p.name for p in day0.glob("*.parquet")] == ["BurstGPT_2.parquet"]
    assert_equals_full_reload(warehouse, up, path, tmp_path, "reloaded-shorter")


def test_rewritten_in_place_with_the_same_size_is_parsed_whole(warehouse: Settings, tmp_path: Path) -> None:
    up = burstgpt_2()
    path = tmp_path / "BurstGPT_2.csv"
    path.write_text("\n".join([BURST_HEADER, *request_lines(0, 20), *request_lines(1, 20)]) + "\n")
    load(warehouse, up, path)
    size = path.stat().st_size
    path.write_text(path.read_text().replace(",15,5,20,", ",16,5,21,", 1))
    assert path.stat().st_size == size
    result = load(warehouse, up, path)
    assert (result.mode, result.lines_parsed) == ("full", 40)
    assert result.swap is not None and result.swap.written == ["0000"] and result.swap.unchanged == ["0001"]
    assert_equals_full_reload(warehouse, up, path, tmp_path)


GROWN_NOT_APPENDED = {
    "edited_prefix": (
        "\n".join([BURST_HEADER, *request_lines(0, 20)]) + "\n",
        "\n".join([BURST_HEADER, *request_lines(0, 19), *request_lines(1, 5)]) + "\n",
    ),
    # bytes added to an unterminated last line change that line: not an append of whole lines
    "last_line_without_newline": (
        "\n".join([BURST_HEADER, *request_lines(0, 5)]) + "\n4,ChatGPT,1,1,2,API lo",
        "\n".join([BURST_HEADER, *request_lines(0, 5)])
        + "\n4,ChatGPT,1,1,2,API log\n"
        + "\n".join(request_lines(1, 3))
        + "\n",
    ),
}


@pytest.mark.parametrize("case", sorted(GROWN_NOT_APPENDED))
def test_a_grown_file_that_is_not_an_append_is_parsed_whole(
    case: str, warehouse: Settings, tmp_path: Path
) -> None:
    before, after = GROWN_NOT_APPENDED[case]
    assert len(after) > len(before)
    up = burstgpt_2()
    path = tmp_path / "BurstGPT_2.csv"
    path.write_text(before)
    load(warehouse, up, path)
    path.write_text(after)
    result = load(warehouse, up, path)
    assert (result.mode, result.lines_parsed, result.state.rejected) == (
        "full",
        after.count("\n") - 1,
        0,
    )  # data lines, the header apart
    assert_equals_full_reload(warehouse, up, path, tmp_path)


def test_utilization_samples_appended(warehouse: Settings, tmp_path: Path) -> None:
    """A wide file gains 15-s samples: values and empty cells add up, the last day's partition is merged."""
    up = next(f for f in discover_utilization(["data/utilization/seren/GPU_UTIL.csv"]).files)
    path = tmp_path / "GPU_UTIL.csv"
    path.write_text(
        "Time,10.140.0.1-0,10.140.0.1-1\n2023-07-19 07:59:45+08:00,99.0,\n2023-07-19 08:00:00+08:00,,0.5\n"
    )
    load(warehouse, up, path)
    with path.open("a") as fh:
        fh.write(
            "2023-07-19 08:00:15+08:00,3,4\n2023-07-19 08:00:30+08:00,bad,1\n2023-07-20 08:00:30+08:00,,7\n"
        )
    result = load(warehouse, up, path)
    st = result.state
    assert (result.mode, result.lines_parsed) == ("append", 3)
    assert (st.lines, st.loaded, st.rejected, st.values, st.empty_cells) == (5, 4, 1, 5, 3)
    assert_equals_full_reload(warehouse, up, path, tmp_path)
