"""Loading CSV files into the raw lake: types, line numbers, rejects, reconciliation, idempotence.

Real DuckDB, real files; each broken-input case is a small file written here.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import duckdb
import pytest

from pipelines.families.registry import fixed_files
from pipelines.families.upstream import UpstreamFile, discover_utilization
from pipelines.lake import csv_sql
from pipelines.lake.header import LoadError
from pipelines.lake.loader import SourceFile, load_file
from pipelines.lake.state import partition_dir
from pipelines.settings import Settings
from tests.conftest import REAL_DIR

SEREN_HEADER = (
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time"
)
SEREN_ROW = (
    "5778469,u5907,1,8,128,Other,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 00:24:11+08:00,"
    "2023-03-01 01:09:04+08:00,2693,13,21544.0"
)
BURST_HEADER = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"


def upstream(name: str) -> UpstreamFile:
    return next(f for f in fixed_files() if f.file_name == name)


def load(settings: Settings, up: UpstreamFile, path: Path, origin: str = "synthetic", real_lines=()):
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    return load_file(settings, SourceFile(up, path, sha, origin, real_lines))


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(content.encode() if isinstance(content, str) else content)
    return p


def raw_rows(settings: Settings, family: str, order: str = "_row_number") -> list[dict]:
    glob = settings.raw_dir / family / "_partition=*" / "*.parquet"
    rel = duckdb.sql(
        f"select * from read_parquet('{glob}', hive_partitioning=true, hive_types={{'_partition': 'VARCHAR'}}) "
        f"order by {order}"
    )
    return [dict(zip(rel.columns, r, strict=True)) for r in rel.fetchall()]


def rejects(settings: Settings, family: str) -> list[dict]:
    rel = duckdb.sql(f"select * from '{settings.rejects_dir / family}/*.parquet' order by line")
    return [dict(zip(rel.columns, r, strict=True)) for r in rel.fetchall()]


def test_seren_rows_typed_with_utc_and_offset(warehouse: Settings, tmp_path: Path) -> None:
    path = write(tmp_path, "trace_seren.csv", f"{SEREN_HEADER}\n{SEREN_ROW}\n")
    result = load(warehouse, upstream("trace_seren.csv"), path)
    (row,) = raw_rows(warehouse, "acme__seren_jobs")
    assert row["job_id"] == 5778469 and row["gpu_num"] == 8 and row["gpu_time"] == 21544.0
    assert str(row["submit_time"]) == "2023-02-28 16:23:58"  # 00:23:58+08:00 in UTC
    assert row["submit_time_utc_offset"] == "+08:00"
    assert row["_partition"] == "2023-02"  # month of submit_time in UTC
    assert row["_row_number"] == 2 and row["_source_file"] == upstream("trace_seren.csv").mirror_path
    assert row["_data_origin"] == "synthetic"
    assert (result.state.lines, result.state.loaded, result.state.rejected) == (1, 1, 0)


def test_kalos_readme_rows_keep_reported_durations(warehouse: Settings) -> None:
    path = REAL_DIR / "acmetrace_kalos_readme_rows.csv"
    load(warehouse, upstream("trace_kalos.csv"), path, origin="real")
    rows = raw_rows(warehouse, "acme__kalos_jobs")
    assert [r["duration"] for r in rows] == [18.0, 82.0]
    assert [r["job_id"] for r in rows] == ["dlctk696s0jbvitv", "dlc1t2ypl09b8qtp"]
    assert rows[0]["fail_time"] is not None and rows[0]["stop_time"] is None
    assert rows[1]["stop_time"] is not None and rows[1]["fail_time"] is None
    assert {r["submit_time_utc_offset"] for r in rows} == {"+00:00"}
    assert {r["_data_origin"] for r in rows} == {"real"}


def test_real_burstgpt_rows_load_exactly(warehouse: Settings) -> None:
    path = REAL_DIR / "burstgpt_1_first400.csv"
    result = load(warehouse, upstream("BurstGPT_1.csv"), path, origin="real")
    rows = raw_rows(warehouse, "burstgpt__requests")
    assert len(rows) == 400 and result.state.rejected == 0
    assert (
        sum(1 for r in rows if (r["request_tokens"], r["response_tokens"], r["total_tokens"]) == (0, 0, 0))
        == 17
    )
    assert rows[0]["timestamp_s"] == 5 and rows[-1]["timestamp_s"] == 37274
    assert {r["_data_origin"] for r in rows} == {"real"}
    assert [r["_row_number"] for r in rows] == list(range(2, 402))
    assert rows[0]["session_id"] is None and rows[0]["elapsed_time"] is None  # absent in files 1-2
    assert {r["_partition"] for r in rows} == {"0000"}


def test_burstgpt_3_layout_read_by_name(warehouse: Settings, tmp_path: Path) -> None:
    text = (
        "Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
        "19440110.0,3f2b6a9e-1c4d-4e1a-9a51-1b2c3d4e5f60,12.5,GPT-4,100,20,120,Conversation log\n"
        "19440111.0,,0,ChatGPT,50,0,50,API log\n"
        "19526510.0,,3.25,ChatGPT,7,8,15,API log\n"
    )
    path = write(tmp_path, "BurstGPT_3.csv", text)
    load(warehouse, upstream("BurstGPT_3.csv"), path)
    rows = raw_rows(warehouse, "burstgpt__requests")
    assert [r["model"] for r in rows] == ["GPT-4", "ChatGPT", "ChatGPT"]
    assert rows[0]["session_id"] == "3f2b6a9e-1c4d-4e1a-9a51-1b2c3d4e5f60"
    assert [r["session_id"] for r in rows if r["log_type"] == "API log"] == [None, None]
    assert [r["elapsed_time"] for r in rows] == [12.5, 0.0, 3.25]
    assert [r["total_tokens"] for r in rows] == [120, 50, 15]
    assert [r["_partition"] for r in rows] == ["0225", "0225", "0226"]  # 19440110 // 86400 = 225


@pytest.mark.parametrize(
    ("line", "column", "reason"),
    [
        ("5,ChatGPT,1,2,3,Conversation log,extra", None, "expected 6 fields, found 7"),
        ("5,ChatGPT,1,2,Conversation log", None, "expected 6 fields, found 5"),
        (
            "5,ChatGPT,one,2,3,Conversation log",
            "Request tokens",
            "column Request tokens: 'one' is not an integer",
        ),
        ("abc,ChatGPT,1,2,3,Conversation log", "Timestamp", "column Timestamp: 'abc' is not a number"),
        (
            ",ChatGPT,1,2,3,Conversation log",
            "Timestamp",
            "column Timestamp: empty value in a required column",
        ),
        ("", None, "empty line"),
    ],
)
def test_bad_line_is_rejected_with_reason(
    warehouse: Settings, tmp_path: Path, line: str, column: str | None, reason: str
) -> None:
    path = write(
        tmp_path,
        "BurstGPT_1.csv",
        f"{BURST_HEADER}\n5,ChatGPT,1,2,3,API log\n{line}\n6,GPT-4,4,5,9,API log\n",
    )
    result = load(warehouse, upstream("BurstGPT_1.csv"), path)
    (rej,) = rejects(warehouse, "burstgpt__requests")
    assert (rej["line"], rej["column_name"], rej["reason"]) == (3, column, reason)
    assert rej["raw_text"] == (line or None)
    assert [r["_row_number"] for r in raw_rows(warehouse, "burstgpt__requests")] == [2, 4]
    assert (result.state.lines, result.state.loaded, result.state.rejected) == (3, 2, 1)


def test_unparseable_and_truncated_timestamps_rejected(warehouse: Settings, tmp_path: Path) -> None:
    bad_ts = SEREN_ROW.replace("2023-03-01 00:23:58+08:00", "yesterday", 1)
    truncated = SEREN_ROW.rsplit(",", 4)[0][:-1]  # last line cut inside end_time, no newline
    path = write(
        tmp_path, "trace_seren.csv", f"{SEREN_HEADER}\n{SEREN_ROW}\n{bad_ts}\n{SEREN_ROW}\n{truncated}"
    )
    result = load(warehouse, upstream("trace_seren.csv"), path)
    rej = rejects(warehouse, "acme__seren_jobs")
    assert [(r["line"], r["column_name"]) for r in rej] == [(3, "submit_time"), (5, None)]
    assert rej[0]["reason"] == "column submit_time: 'yesterday' is not a timestamp"
    assert rej[1]["reason"] == "expected 13 fields, found 9"
    assert (result.state.lines, result.state.loaded, result.state.rejected) == (4, 2, 2)


def test_truncated_value_in_last_line_rejected(warehouse: Settings, tmp_path: Path) -> None:
    cut = SEREN_ROW.replace("2023-03-01 01:09:04+08:00,2693,13,21544.0", "2023-03-01 01:09:0,2693,13,21544.0")
    path = write(tmp_path, "trace_seren.csv", f"{SEREN_HEADER}\n{SEREN_ROW}\n{cut}")
    load(warehouse, upstream("trace_seren.csv"), path)
    (rej,) = rejects(warehouse, "acme__seren_jobs")
    assert rej["line"] == 3 and rej["column_name"] == "end_time"


def test_non_utf8_line_rejected_and_numbering_kept(warehouse: Settings, tmp_path: Path) -> None:
    content = f"{BURST_HEADER}\n5,ChatGPT,1,2,3,API log\n".encode() + b"6,Chat\xff\xfeGPT,1,2,3,API log\n"
    content += b"7,GPT-4,1,2,3,API log\n8,GPT-4,1,2,3,API log\n"
    path = write(tmp_path, "BurstGPT_1.csv", content)
    result = load(warehouse, upstream("BurstGPT_1.csv"), path)
    (rej,) = rejects(warehouse, "burstgpt__requests")
    assert rej["line"] == 3 and rej["reason"].startswith("invalid encoding")
    assert [r["_row_number"] for r in raw_rows(warehouse, "burstgpt__requests")] == [2, 4, 5]
    assert (result.state.lines, result.state.loaded, result.state.rejected) == (4, 3, 1)


def test_crlf_line_endings(warehouse: Settings, tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "BurstGPT_1.csv",
        f"{BURST_HEADER}\r\n5,ChatGPT,1,2,3,API log\r\n6,GPT-4,4,5,9,Conversation log\r\n",
    )
    result = load(warehouse, upstream("BurstGPT_1.csv"), path)
    rows = raw_rows(warehouse, "burstgpt__requests")
    assert [r["log_type"] for r in rows] == ["API log", "Conversation log"]
    assert result.state.rejected == 0


def test_quoted_fields(warehouse: Settings, tmp_path: Path) -> None:
    path = write(tmp_path, "BurstGPT_1.csv", f'{BURST_HEADER}\n5,"Chat,GPT",1,2,3,"API ""log"""\n')
    load(warehouse, upstream("BurstGPT_1.csv"), path)
    (row,) = raw_rows(warehouse, "burstgpt__requests")
    assert (row["model"], row["log_type"]) == ("Chat,GPT", 'API "log"')


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (BURST_HEADER.replace("Model", "Modell"), "lacks column(s) Model"),
        (BURST_HEADER.replace(",Log Type", ""), "lacks column(s) Log Type"),
        (BURST_HEADER + ",Region", "unexpected column(s) Region"),
        (BURST_HEADER + ",Model", "repeats column(s) Model"),
    ],
)
def test_bad_header_is_a_clear_error(warehouse: Settings, tmp_path: Path, header: str, message: str) -> None:
    path = write(tmp_path, "BurstGPT_1.csv", f"{header}\n5,ChatGPT,1,2,3,API log\n")
    with pytest.raises(LoadError, match=re.escape(message)) as exc:
        load(warehouse, upstream("BurstGPT_1.csv"), path)
    assert str(path) in str(exc.value)
    assert not (warehouse.raw_dir / "burstgpt__requests").exists() or not list(
        (warehouse.raw_dir / "burstgpt__requests").glob("_partition=*/*.parquet")
    )


def test_empty_file_is_a_clear_error(warehouse: Settings, tmp_path: Path) -> None:
    path = write(tmp_path, "BurstGPT_1.csv", b"")
    with pytest.raises(LoadError, match="file is empty"):
        load(warehouse, upstream("BurstGPT_1.csv"), path)


def test_header_only_file_loads_zero_rows(warehouse: Settings, tmp_path: Path) -> None:
    path = write(tmp_path, "BurstGPT_1.csv", f"{BURST_HEADER}\n")
    result = load(warehouse, upstream("BurstGPT_1.csv"), path)
    assert (result.state.lines, result.state.loaded, result.state.rejected) == (0, 0, 0)
    assert result.state.partitions == []
    assert rejects(warehouse, "burstgpt__requests") == []


def test_rerun_is_idempotent_and_change_rewrites_only_its_partition(
    warehouse: Settings, tmp_path: Path
) -> None:
    day0 = "5,ChatGPT,1,2,3,API log\n10,GPT-4,1,2,3,API log\n"
    day1 = "86405,ChatGPT,4,5,9,API log\n"
    day2 = "172805,ChatGPT,4,5,9,API log\n"
    path = write(tmp_path, "BurstGPT_1.csv", BURST_HEADER + "\n" + day0 + day1 + day2)
    up = upstream("BurstGPT_1.csv")
    first = load(warehouse, up, path)
    assert first.swap.written == ["0000", "0001", "0002"]
    files = {
        k: (partition_dir(warehouse, "burstgpt__requests", k) / "BurstGPT_1.parquet")
        for k in ("0000", "0001", "0002")
    }
    before = {k: p.read_bytes() for k, p in files.items()}

    again = load(warehouse, up, path)
    assert again.skipped and len(raw_rows(warehouse, "burstgpt__requests")) == 4

    path.write_text(BURST_HEADER + "\n" + day0 + day1.replace("4,5,9", "4,6,10") + day2)
    changed = load(warehouse, up, path)
    assert changed.swap.written == ["0001"] and changed.swap.unchanged == ["0000", "0002"]
    assert files["0000"].read_bytes() == before["0000"] and files["0002"].read_bytes() == before["0002"]
    assert files["0001"].read_bytes() != before["0001"]
    rows = raw_rows(warehouse, "burstgpt__requests")
    assert len(rows) == 4 and rows[2]["total_tokens"] == 10

    path.write_text(BURST_HEADER + "\n" + day0 + day1)  # a day disappears upstream
    shrunk = load(warehouse, up, path)
    assert shrunk.swap.removed == ["0002"] and not files["0002"].exists()


def test_two_files_share_a_partition(warehouse: Settings, tmp_path: Path) -> None:
    one = write(tmp_path, "BurstGPT_1.csv", f"{BURST_HEADER}\n86000,ChatGPT,1,2,3,API log\n")
    two = write(tmp_path, "BurstGPT_2.csv", f"{BURST_HEADER}\n86100,GPT-4,1,2,3,API log\n")
    load(warehouse, upstream("BurstGPT_1.csv"), one)
    load(warehouse, upstream("BurstGPT_2.csv"), two)
    rows = raw_rows(warehouse, "burstgpt__requests", order="_source_file")
    assert [(r["_partition"], r["model"]) for r in rows] == [("0000", "ChatGPT"), ("0000", "GPT-4")]


def test_mixed_origin_marks_real_line_ranges(warehouse: Settings, tmp_path: Path) -> None:
    path = write(tmp_path, "BurstGPT_1.csv", BURST_HEADER + "\n" + "5,ChatGPT,1,2,3,API log\n" * 4)
    load(warehouse, upstream("BurstGPT_1.csv"), path, origin="mixed", real_lines=[[2, 3]])
    origins = [r["_data_origin"] for r in raw_rows(warehouse, "burstgpt__requests")]
    assert origins == ["real", "real", "synthetic", "synthetic"]


def test_wide_utilization_is_unpivoted(warehouse: Settings, tmp_path: Path) -> None:
    text = (
        "Time,10.140.0.1-0,10.140.0.1-1,10.140.0.131.1\n"
        "2023-07-19 07:59:45+08:00,99.0,,\n"
        "2023-07-19 08:00:00+08:00,,0.5,12.25\n"
        "2023-07-19 08:00:15+08:00,,,\n"
        "2023-07-19 08:00:30+08:00,bad,1,2\n"
    )
    up = next(f for f in discover_utilization(["data/utilization/seren/GPU_UTIL.csv"]).files)
    path = write(tmp_path, "GPU_UTIL.csv", text)
    result = load(warehouse, up, path)
    rows = raw_rows(warehouse, "acme__gpu_metrics", order="_row_number, series")
    assert [(r["_row_number"], r["series"], r["value"]) for r in rows] == [
        (2, "10.140.0.1-0", 99.0), (3, "10.140.0.1-1", 0.5), (3, "10.140.0.131.1", 12.25),
    ]  # fmt: skip
    assert [r["_partition"] for r in rows] == ["2023-07-18", "2023-07-19", "2023-07-19"]
    assert {(r["cluster"], r["metric"], r["time_utc_offset"]) for r in rows} == {
        ("seren", "GPU_UTIL", "+08:00")
    }
    st = result.state
    assert (st.lines, st.loaded, st.rejected, st.values, st.empty_cells) == (4, 3, 1, 3, 6)
    (rej,) = rejects(warehouse, "acme__gpu_metrics")
    assert rej["reason"] == "column 10.140.0.1-0: 'bad' is not a number"


def test_wide_header_repeating_a_series_is_a_clear_error(warehouse: Settings, tmp_path: Path) -> None:
    """Two columns naming one GPU cannot be told apart (a pandas-written file never has them: it renames the
    second ``.1``); the validation's copy count relies on one cell per line and series."""
    up = next(f for f in discover_utilization(["data/utilization/seren/GPU_UTIL.csv"]).files)
    path = write(tmp_path, "GPU_UTIL.csv", "Time,10.140.0.1-0,10.140.0.1-0\n2023-07-19 08:00:00+08:00,1,2\n")
    with pytest.raises(LoadError, match=re.escape("header repeats series column(s) 10.140.0.1-0")) as exc:
        load(warehouse, up, path)
    assert str(path) in str(exc.value)
    assert not list(warehouse.raw_dir.glob("acme__gpu_metrics/_partition=*/*.parquet"))


def test_partitions_split_by_the_copy_are_merged_into_one_file(
    warehouse: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More partitions than the COPY keeps open (BurstGPT_3 spans ~120 days): DuckDB starts a second file
    for a partition it had closed; the lake still gets one file per partition, every row once."""
    from pipelines.lake import loader

    monkeypatch.setattr(loader, "PARTITION_FLUSH_ROWS", 1)
    monkeypatch.setattr(loader, "MAX_OPEN_PARTITION_FILES", 1)
    days = [i % 3 for i in range(9_001)]  # rows return to partitions the COPY closed (it works in chunks)
    lines = [f"{d * 86_400 + i},ChatGPT,{i},1,{i + 1},API log" for i, d in enumerate(days)]
    path = write(tmp_path, "BurstGPT_1.csv", BURST_HEADER + "\n" + "\n".join(lines) + "\n")
    result = load(warehouse, upstream("BurstGPT_1.csv"), path)
    assert result.state.loaded == len(lines) and result.state.rejected == 0
    folders = sorted((warehouse.raw_dir / "burstgpt__requests").glob("_partition=*"))
    assert [sorted(p.name for p in f.iterdir()) for f in folders] == [["BurstGPT_1.parquet"]] * 3
    rows = raw_rows(warehouse, "burstgpt__requests")
    assert [r["_row_number"] for r in rows] == list(range(2, 2 + len(lines)))
    assert {p.key: p.rows for p in result.state.partitions} == {"0000": 3_001, "0001": 3_000, "0002": 3_000}


def test_line_numbers_hold_across_a_file_read_in_parallel(
    warehouse: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB's CSV reader sizes its buffer from the longest line allowed: with 1 MiB lines it reads this ~25 MB
    file in chunks on both threads. Each line's Timestamp is its line number, so every row says whether it
    was numbered in file order; a bad value and an undecodable line sit deep in the file."""
    monkeypatch.setattr(csv_sql, "MAX_LINE_BYTES", 1 << 20)
    n = 1_000_000
    bad, undecodable = 734_567, 912_345
    body = bytearray(f"{BURST_HEADER}\n".encode())
    for line in range(2, n + 2):
        if line == bad:
            body += f"{line},ChatGPT,x,2,3,API log\n".encode()
        elif line == undecodable:
            body += f"{line},Chat\xff,1,2,3,API log\n".encode("latin-1")
        else:
            body += f"{line},ChatGPT,1,2,3,API log\n".encode()
    result = load(warehouse, upstream("BurstGPT_1.csv"), write(tmp_path, "BurstGPT_1.csv", bytes(body)))
    assert (result.state.lines, result.state.loaded, result.state.rejected) == (n, n - 2, 2)
    assert [(r["line"], r["column_name"]) for r in rejects(warehouse, "burstgpt__requests")] == [
        (bad, "Request tokens"),
        (undecodable, None),
    ]
    glob = warehouse.raw_dir / "burstgpt__requests" / "_partition=*" / "*.parquet"
    misnumbered = duckdb.sql(
        f"select count(*) filter (where _row_number <> timestamp_s), count(*) from read_parquet('{glob}')"
    ).fetchall()
    assert misnumbered == [(0, n - 2)]
