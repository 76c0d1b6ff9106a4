"""The reader snapshot is copied only when a write session changed ``trace.duckdb``; unchanged views are
not re-created, so refreshing them changes nothing. Real DuckDB files, a real lake written by the loader."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from pipelines.families.registry import fixed_files
from pipelines.lake.loader import SourceFile, load_file
from pipelines.settings import Settings
from pipelines.warehouse.db import reader, snapshot_path, writer, writer_lock
from pipelines.warehouse.views import refresh_views

FAMILY = "burstgpt__requests"
HEADER = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"


def _load(settings: Settings, path: Path) -> None:
    up = next(f for f in fixed_files() if f.file_name == "BurstGPT_1.csv")
    load_file(settings, SourceFile(up, path, hashlib.sha256(path.read_bytes()).hexdigest(), "synthetic"))


def _refresh(settings: Settings) -> None:
    with writer(settings) as con:
        refresh_views(con, settings, [FAMILY])


def test_a_session_that_changes_nothing_copies_nothing(warehouse: Settings, tmp_path: Path) -> None:
    path = tmp_path / "BurstGPT_1.csv"
    path.write_text(f"{HEADER}\n5,ChatGPT,1,2,3,API log\n")
    _load(warehouse, path)
    _refresh(warehouse)
    snapshot = snapshot_path(warehouse)
    live_stat, snap_stat = warehouse.duckdb_path.stat(), snapshot.stat()

    _refresh(warehouse)  # same views: neither file is written
    assert warehouse.duckdb_path.stat().st_mtime_ns == live_stat.st_mtime_ns
    assert snapshot.stat().st_mtime_ns == snap_stat.st_mtime_ns

    # a new day lands in a new partition: the views read the lake by glob, so they still need no change,
    # and readers of either file see the new rows
    with path.open("a") as fh:
        fh.write("86405,GPT-4,4,5,9,Conversation log\n")
    _load(warehouse, path)
    _refresh(warehouse)
    assert snapshot.stat().st_mtime_ns == snap_stat.st_mtime_ns
    for db in (warehouse.duckdb_path, snapshot):
        with duckdb.connect(str(db), read_only=True) as con:
            assert con.execute(f"select count(*) from raw.{FAMILY}").fetchall() == [(2,)]

    # a write that changes the file is published
    with writer(warehouse) as con:
        con.execute("create table main.note as select 1 as x")
    assert snapshot.stat().st_mtime_ns != snap_stat.st_mtime_ns
    with duckdb.connect(str(snapshot), read_only=True) as con:
        assert con.execute("select x from main.note").fetchall() == [(1,)]


def test_a_view_whose_body_changed_is_recreated(warehouse: Settings, tmp_path: Path) -> None:
    _refresh(warehouse)  # before any load: no raw view, an empty typed quarantine view
    with duckdb.connect(str(warehouse.duckdb_path), read_only=True) as con:
        assert con.execute(
            f"select count(*) from duckdb_views() where view_name = '{FAMILY}'"
        ).fetchall() == [(1,)]
    path = tmp_path / "BurstGPT_1.csv"
    path.write_text(f"{HEADER}\n5,ChatGPT,1,2,3,API log\n")
    _load(warehouse, path)
    _refresh(warehouse)
    with duckdb.connect(str(snapshot_path(warehouse)), read_only=True) as con:
        assert con.execute(f"select count(*) from raw.{FAMILY}").fetchall() == [(1,)]


HOLD_THE_WRITER_LOCK = (
    "import sys; from filelock import FileLock; lock = FileLock(sys.argv[1]); lock.acquire(); "
    "print('held', flush=True); sys.stdin.read()"
)
OPEN_FOR_WRITING = "import duckdb, sys; duckdb.connect(sys.argv[1]).close()"


def test_readers_leave_the_live_file_to_a_run_that_holds_the_writer_lock(
    warehouse: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Between a run's write sessions (say, before its dbt step connects) the live file is free, but the run
    holds the writer lock: a reader then answers from the snapshot, so readers polling the warehouse cannot
    keep the run's next session out. The lock's holder itself still reads the live file."""
    path = tmp_path / "BurstGPT_1.csv"
    path.write_text(f"{HEADER}\n5,ChatGPT,1,2,3,API log\n")
    _load(warehouse, path)
    _refresh(warehouse)  # trace.duckdb and its snapshot
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_WRITER_LOCK, str(warehouse.lock_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        con = reader(warehouse)
        try:
            assert con.execute(f"select count(*) from raw.{FAMILY}").fetchall() == [(1,)]
            other = subprocess.run(  # the run's next session: it can open the live file for writing
                [sys.executable, "-c", OPEN_FOR_WRITING, str(warehouse.duckdb_path)],
                capture_output=True,
                text=True,
                check=False,
            )
            assert other.returncode == 0, other.stderr[-2000:]
        finally:
            con.close()
        assert "answering from the snapshot" in capsys.readouterr().err
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)

    with writer_lock(warehouse):  # this process holds the lock: its own reads see the live file
        reader(warehouse).close()
    reader(warehouse).close()  # nobody holds it
    assert "snapshot" not in capsys.readouterr().err
