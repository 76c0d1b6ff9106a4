"""CSV dialects that real files come in, on the exact path and the wide fast path, whole and as appended tails.

Each case either loads every good line or rejects the bad ones one by one, with the file, the line and a
reason; ``loaded + rejected = lines`` always holds. Real DuckDB, real files written here.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pytest

from pipelines.families.registry import fixed_files
from pipelines.families.upstream import UpstreamFile, discover_utilization
from pipelines.lake import csv_sql as q
from pipelines.lake.header import LoadError, engine_error
from pipelines.lake.loader import SourceFile, load_file
from pipelines.settings import Settings, load_settings

HEADER = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"
A = "5,ChatGPT,1,2,3,API log"
B = "6,GPT-4,4,5,9,Conversation log"
C = "7,GPT-4,1,1,2,API log"
NUL_REASON = q.NUL_REASON
REPEATED = q.REPEATED_HEADER_REASON

# name: (file bytes, [(line, model) loaded], [(line, reason prefix)] rejected)
CASES: dict[str, tuple[bytes, list[tuple[int, str]], list[tuple[int, str]]]] = {
    "crlf": (f"{HEADER}\r\n{A}\r\n{B}\r\n".encode(), [(2, "ChatGPT"), (3, "GPT-4")], []),
    "crlf_then_lf": (f"{HEADER}\r\n{A}\r\n{B}\n{C}\n".encode(), [(2, "ChatGPT"), (3, "GPT-4"), (4, "GPT-4")], []),
    "lf_then_crlf": (f"{HEADER}\n{A}\n{B}\r\n{C}\r\n".encode(), [(2, "ChatGPT"), (3, "GPT-4"), (4, "GPT-4")], []),
    "lone_cr": (f"{HEADER}\r{A}\r{B}\r".encode(), [(2, "ChatGPT"), (3, "GPT-4")], []),
    "lone_cr_and_a_non_utf8_byte": (
        f"{HEADER}\r{A}\r".encode() + b"6,Chat\xffGPT,1,2,3,API log\r" + f"{B}\r".encode(),
        [(2, "ChatGPT"), (4, "GPT-4")],
        [(3, "invalid encoding")],
    ),
    "bom": (f"\ufeff{HEADER}\n{A}\n".encode(), [(2, "ChatGPT")], []),
    "quoted_comma_quote_newline": (
        f'{HEADER}\n5,"Chat,\n""GPT""",1,2,3,"API log"\n{B}\n'.encode(),
        [(2, 'Chat,\n"GPT"'), (4, "GPT-4")],
        [],
    ),
    "quoted_newline_crlf": (
        f'{HEADER}\r\n5,"Chat\r\nGPT",1,2,3,API log\r\n{B}\r\n'.encode(),
        [(2, "Chat\nGPT"), (4, "GPT-4")],
        [],
    ),
    "trailing_spaces_and_blank_lines": (
        f"{HEADER}\n{A}   \n{B}\n\n\n".encode(),
        [(2, "ChatGPT"), (3, "GPT-4")],
        [(4, "empty line"), (5, "empty line")],
    ),
    "no_final_newline": (f"{HEADER}\n{A}\n{B}".encode(), [(2, "ChatGPT"), (3, "GPT-4")], []),
    "nul_byte": (f"{HEADER}\n{A}\n6,GP\x00T,1,2,3,API log\n{B}\n".encode(), [(2, "ChatGPT"), (4, "GPT-4")], [(3, NUL_REASON)]),
    "repeated_header": (f"{HEADER}\n{A}\n{HEADER}\n{B}\n".encode(), [(2, "ChatGPT"), (4, "GPT-4")], [(3, REPEATED)]),
    "repeated_header_with_bom": (
        f"\ufeff{HEADER}\r\n{A}\r\n\ufeff{HEADER}\n{B}\n".encode(),
        [(2, "ChatGPT"), (4, "GPT-4")],
        [(3, REPEATED)],
    ),
    "non_utf8_byte": (
        f"{HEADER}\n{A}\n".encode() + b"6,Chat\xffGPT,1,2,3,API log\n" + f"{B}\n".encode(),
        [(2, "ChatGPT"), (4, "GPT-4")],
        [(3, "invalid encoding")],
    ),
    "unclosed_quote_at_the_end": (
        f'{HEADER}\n{A}\n6,"GPT-4,1,2,3,API log\n{B}\n'.encode(),
        [(2, "ChatGPT"), (4, "GPT-4")],
        [(3, q.UNCLOSED_REASON)],
    ),
}  # fmt: skip


def _upstream(name: str) -> UpstreamFile:
    return next(f for f in fixed_files() if f.file_name == name)


def _load(settings: Settings, up: UpstreamFile, path: Path, **kw: bool):
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    return load_file(settings, SourceFile(up, path, sha, "synthetic"), **kw)


def _rows(settings: Settings, family: str, columns: str) -> list[tuple]:
    glob = settings.raw_dir / family / "_partition=*" / "*.parquet"
    return duckdb.sql(f"select {columns} from read_parquet('{glob}') order by all").fetchall()


def _rejects(settings: Settings, family: str) -> list[tuple]:
    sql = f"select line, reason, source_file from '{settings.rejects_dir / family}/*.parquet' order by line"
    return duckdb.sql(sql).fetchall()


@pytest.mark.parametrize("case", CASES)
def test_dialect_loads_good_lines_and_rejects_bad_ones(
    warehouse: Settings, tmp_path: Path, case: str
) -> None:
    content, loaded, rejected = CASES[case]
    path = tmp_path / "BurstGPT_1.csv"
    path.write_bytes(content)
    up = _upstream("BurstGPT_1.csv")
    st = _load(warehouse, up, path).state
    assert _rows(warehouse, up.family, "_row_number, model") == loaded
    rej = _rejects(warehouse, up.family)
    assert [
        (line, reason[: len(want)]) for (line, reason, _), (_, want) in zip(rej, rejected, strict=True)
    ] == rejected
    assert {s for _, _, s in rej} <= {up.mirror_path}
    assert (st.loaded, st.rejected) == (len(loaded), len(rejected))
    assert st.loaded + st.rejected == st.lines


@pytest.mark.parametrize(
    "case", ["crlf_then_lf", "lone_cr", "quoted_comma_quote_newline", "nul_byte", "repeated_header"]
)
def test_dialect_of_an_appended_tail(warehouse: Settings, tmp_path: Path, case: str) -> None:
    """The same lines appended to a loaded file (numbered after its physical lines) give what a whole load
    of the grown file gives."""
    content, _, _ = CASES[case]
    head = f"{HEADER}\r\n{A}\r\n".encode() if case == "crlf_then_lf" else f"{HEADER}\n{A}\n".encode()
    body = content.split(b"\n", 1)[1] if b"\n" in content else content.split(b"\r", 1)[1]
    path = tmp_path / "BurstGPT_1.csv"
    path.write_bytes(head)
    up = _upstream("BurstGPT_1.csv")
    _load(warehouse, up, path)
    path.write_bytes(head + body)
    appended = _load(warehouse, up, path)
    assert appended.mode == "append"
    whole = load_settings({"WAREHOUSE_DIR": str(tmp_path / "whole")})
    full = _load(whole, up, path)
    assert full.mode == "full"
    cols = "_row_number, model, request_tokens, log_type"
    assert _rows(warehouse, up.family, cols) == _rows(whole, up.family, cols)
    assert [r[:2] for r in _rejects(warehouse, up.family)] == [r[:2] for r in _rejects(whole, up.family)]
    a, f = appended.state, full.state
    assert (a.lines, a.loaded, a.rejected) == (f.lines, f.loaded, f.rejected)
    assert a.loaded + a.rejected == a.lines


WIDE = "Time,10.0.0.1-0,10.0.0.1-1"
W1 = "2023-07-19 07:59:45+08:00,99.0,1"
W2 = "2023-07-19 08:00:00+08:00,,0.5"
WIDE_CASES = {
    "crlf": f"{WIDE}\r\n{W1}\r\n{W2}\r\n".encode(),
    "crlf_then_lf": f"{WIDE}\r\n{W1}\r\n{W2}\n{W1}\n".encode(),
    "lone_cr": f"{WIDE}\r{W1}\r{W2}\r".encode(),
    "lone_cr_and_a_blank_line": f"{WIDE}\n{W1}\r{W2}\n\n{W1}\n".encode(),
    "bom": f"\ufeff{WIDE}\n{W1}\n".encode(),
    "quoted": f'{WIDE}\n"{W1.split(",")[0]}","99.0",1\n{W2}\n'.encode(),
    "trailing_blank_lines": f"{WIDE}\n{W1}\n{W2}\n\n".encode(),
    "no_final_newline": f"{WIDE}\n{W1}\n{W2}".encode(),
    "nul_byte": f"{WIDE}\n{W1}\n2023-07-19 08:00:15+08:00,\x00,1\n{W2}\n".encode(),
    "repeated_header": f"{WIDE}\n{W1}\n{WIDE}\n{W2}\n".encode(),
    "non_utf8_byte": f"{WIDE}\n{W1}\n".encode() + b"2023-07-19 08:00:15+08:00,\xff,1\n" + f"{W2}\n".encode(),
}


@pytest.mark.parametrize("case", WIDE_CASES)
def test_wide_dialect_fast_and_exact_agree(tmp_path: Path, case: str) -> None:
    """Whichever path a wide file takes, the lake rows, rejects and counts are those of the exact path."""
    up = next(iter(discover_utilization(["data/utilization/seren/GPU_UTIL.csv"]).files))
    path = tmp_path / "GPU_UTIL.csv"
    path.write_bytes(WIDE_CASES[case])
    out = {}
    for mode, fast in (("exact", False), ("fast", True)):
        settings = load_settings({"WAREHOUSE_DIR": str(tmp_path / mode)})
        st = _load(settings, up, path, fast_wide=fast).state
        assert st.loaded + st.rejected == st.lines
        cols = "_row_number, series, value, time"
        out[mode] = (_rows(settings, up.family, cols), _rejects(settings, up.family), st.lines, st.values)
    assert out["fast"] == out["exact"]
    assert out["exact"][0], "every case has good lines"


def test_engine_error_becomes_a_load_error_naming_file_and_line(tmp_path: Path) -> None:
    """The parser error DuckDB raised on a file whose line endings change part-way (before the loader read
    such files from an LF copy) comes out as a LoadError in the project's words."""
    path = tmp_path / "BurstGPT_1.csv"
    path.write_bytes(f"{HEADER}\r\n{A}\r\n{B}\n{C}\n".encode())
    sql = q.read_lines_sql(str(path), store_rejects=False).replace(
        "ignore_errors=true", "ignore_errors=false"
    )
    with pytest.raises(duckdb.Error) as raised:
        duckdb.sql(sql).fetchall()
    err = engine_error(path, raised.value)
    assert isinstance(err, LoadError) and err.path == str(path)
    text = str(err)
    assert str(path) in text and "land it again" in text
    assert "duckdb" not in text.lower() and "Invalid Input" not in text and "state machine" not in text
