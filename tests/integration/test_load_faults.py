"""Faults while the lake is written or after: a full disk, lake files changed behind the warehouse's back.

Real landing, real loads, real DuckDB and Parquet. The full disk is a small tmpfs holding the warehouse
(mounting one needs root; elsewhere those tests are skipped), filled up before the load.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from pipelines.lake import cells
from pipelines.lake.header import DiskFullError
from pipelines.lake.state import partition_dir, read_state, rejects_path
from pipelines.sample.source import trace_source
from pipelines.settings import Settings, load_settings
from pipelines.sources.landing import land_files
from pipelines.warehouse.raw_load import load_family
from tests.support.mirror_server import GPU_UTIL, SEREN_JOBS, upstream_files, write_mirror, write_tiny_mirror

CASES = {
    "exact path": (SEREN_JOBS, "acme__seren_jobs", b",960\n", b",961\n"),
    "wide fast path": (GPU_UTIL, "acme__gpu_metrics", b",0.5,0\n", b",0.75,0\n"),
}


@contextlib.contextmanager
def _small_disk(path: Path, size: str = "16m") -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    path.mkdir(parents=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=False)
    if mounted.returncode != 0:
        pytest.skip("this machine does not allow mounting a tmpfs")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def _fill(disk: Path) -> Path:
    """Fill ``disk`` up: a file written until the filesystem says ENOSPC."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as fh, contextlib.suppress(OSError):
        while True:
            fh.write(b"\0" * 65536)
    return filler


def _lake_rows(settings: Settings, family: str) -> list[tuple]:
    glob = settings.raw_dir / family / "_partition=*" / "*.parquet"
    return duckdb.sql(f"select * exclude (_loaded_at) from read_parquet('{glob}') order by all").fetchall()


def _lake_files(settings: Settings, family: str) -> dict[str, bytes]:
    root = settings.lake_dir
    paths = [
        *(settings.raw_dir / family).rglob("*.parquet"),
        *(settings.rejects_dir / family).glob("*.parquet"),
    ]
    return {str(p.relative_to(root)): p.read_bytes() for p in paths}


def _landed(tmp_path: Path, warehouse: Path, mirror_path: str) -> tuple[Settings, Path, dict[str, bytes]]:
    root = tmp_path / "mirror"
    files = write_tiny_mirror(root)
    env = {"TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(root), "WAREHOUSE_DIR": str(warehouse)}
    settings = load_settings(env)
    assert land_files(settings, upstream_files([mirror_path]), source=trace_source(settings)).ok
    return settings, root, files


@pytest.mark.parametrize("case", CASES)
def test_disk_full_while_partitions_are_written_keeps_the_old_files(tmp_path: Path, case: str) -> None:
    mirror_path, family, old_text, new_text = CASES[case]
    with _small_disk(tmp_path / "disk") as disk:
        settings, root, files = _landed(tmp_path, disk / "warehouse", mirror_path)
        assert not load_family(settings, family).errors
        before_files, before_rows = _lake_files(settings, family), _lake_rows(settings, family)
        before_state = read_state(settings, family, upstream_files([mirror_path])[0].stem)

        changed = files[mirror_path].replace(old_text, new_text)
        assert changed != files[mirror_path]
        write_mirror(root, {**files, mirror_path: changed})
        assert land_files(settings, upstream_files([mirror_path]), source=trace_source(settings)).ok
        filler = _fill(disk)
        with pytest.raises(DiskFullError) as raised:
            load_family(settings, family)
        message = str(raised.value)
        assert "disk full" in message and "Free space and re-run" in message
        assert upstream_files([mirror_path])[0].file_name in message
        assert "duckdb" not in message.lower() and "IO Error" not in message

        # the lake is as it was: the same files, byte for byte, readable, and the same recorded state
        assert _lake_files(settings, family) == before_files
        assert _lake_rows(settings, family) == before_rows
        stem = upstream_files([mirror_path])[0].stem
        assert read_state(settings, family, stem) == before_state
        assert not list((settings.raw_dir / family).glob(".staging-*"))

        filler.unlink()  # space freed: the re-run converges on the new file
        again = load_family(settings, family)
        assert not again.errors and [r.mode for r in again.results] == ["full"]
        state = read_state(settings, family, stem)
        assert state is not None and state.sha256 != before_state.sha256
        assert state.loaded + state.rejected == state.lines
        after = _lake_rows(settings, family)
        assert after != before_rows and len(after) == len(before_rows)
        assert [r.mode for r in load_family(settings, family).results] == ["unchanged"]


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _overwrite(path: Path) -> None:
    path.write_bytes(b"\0" * path.stat().st_size)


DAMAGE = {"truncated": _truncate, "deleted": Path.unlink, "overwritten": _overwrite}


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("case", CASES)
def test_damaged_lake_file_is_named_and_rebuilt_from_landing(tmp_path: Path, case: str, damage: str) -> None:
    mirror_path, family, _, _ = CASES[case]
    settings, _, _ = _landed(tmp_path, tmp_path / "warehouse", mirror_path)
    assert not load_family(settings, family).errors
    rows = _lake_rows(settings, family)
    stem = upstream_files([mirror_path])[0].stem
    state = read_state(settings, family, stem)
    assert state is not None and state.partitions
    target = partition_dir(settings, family, state.partitions[0].key) / f"{stem}.parquet"
    DAMAGE[damage](target)

    said: list[str] = []
    loaded = load_family(settings, family, said.append)
    assert not loaded.errors
    (result,) = loaded.results
    assert result.repaired == [str(target)] and result.mode == "full"
    assert any("missing or damaged" in line and str(target) in line for line in said)
    assert _lake_rows(settings, family) == rows
    assert state.partitions[0].key in loaded.changed  # dbt is told to rebuild it
    assert [r.mode for r in load_family(settings, family).results] == ["unchanged"]


@pytest.mark.parametrize("damage", ["truncated", "deleted"])
def test_damaged_cell_counts_rebuild_their_lake_file(tmp_path: Path, damage: str) -> None:
    """A wide file's cell counts are written with its lake file: when one is missing or damaged, both are
    named and written again, and the counts are those of the first load."""
    settings, _, _ = _landed(tmp_path, tmp_path / "warehouse", GPU_UTIL)
    family = "acme__gpu_metrics"
    assert not load_family(settings, family).errors
    stem = upstream_files([GPU_UTIL])[0].stem
    state = read_state(settings, family, stem)
    assert state is not None and state.partitions
    key = state.partitions[0].key
    counts = cells.lake_path(settings, family, "series", key, f"{stem}.parquet")
    before = duckdb.sql(f"select * from '{counts}' order by all").fetchall()
    assert before
    DAMAGE[damage](counts)

    (result,) = load_family(settings, family).results
    data = partition_dir(settings, family, key) / f"{stem}.parquet"
    assert result.repaired == [str(data), str(counts)] and result.mode == "full"
    assert duckdb.sql(f"select * from '{counts}' order by all").fetchall() == before
    assert [r.mode for r in load_family(settings, family).results] == ["unchanged"]


def test_damaged_rejects_file_is_rebuilt(tmp_path: Path) -> None:
    settings, _, _ = _landed(tmp_path, tmp_path / "warehouse", SEREN_JOBS)
    assert not load_family(settings, "acme__seren_jobs").errors
    stem = upstream_files([SEREN_JOBS])[0].stem
    path = rejects_path(settings, "acme__seren_jobs", stem)
    _truncate(path)
    (result,) = load_family(settings, "acme__seren_jobs").results
    assert result.repaired == [str(path)]
    assert duckdb.sql(f"select count(*) from '{path}'").fetchall() == [(0,)]


_PUBLISHER = """
import shutil
import sys
import time
from pathlib import Path
from pipelines.settings import load_settings
from pipelines.warehouse import db
settings = load_settings({"WAREHOUSE_DIR": sys.argv[1]})
with db.writer(settings) as con:  # a first snapshot, published whole
    con.execute("create table t as select range as x, 1 as i from range(200000)")

def half_then_hang(src, dst):  # the copy reaches half the file, then the process is killed
    with open(src, "rb") as fh, open(dst, "wb") as out:
        data = fh.read()
        out.write(data[: len(data) // 2])
        out.flush()
    Path(sys.argv[2]).touch()
    time.sleep(3600)

db.shutil = type("shutil", (), {"copyfile": staticmethod(half_then_hang)})
with db.writer(settings) as con:
    con.execute("create or replace table t as select range as x, 2 as i from range(200000)")
"""


def _kill_9_at(proc: subprocess.Popen, marker: Path, stopped_early: str) -> None:
    """SIGKILL ``proc`` once it has written ``marker`` (it then waits there); fails with ``stopped_early``
    when it exits first."""
    try:
        while not marker.exists() and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, stopped_early
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()


def test_kill_9_while_the_reader_snapshot_is_published(tmp_path: Path) -> None:
    """A writer killed (SIGKILL) half-way through copying ``trace.duckdb`` to ``published/`` (the copy is
    made to stop there; the kill is real): readers still get the previous snapshot whole, and the next write
    session publishes the current database and clears the half-copied temp file."""
    from pipelines.warehouse.db import reader, snapshot_path, writer

    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path / "warehouse")})
    mid_copy = tmp_path / "mid-copy"
    proc = subprocess.Popen([sys.executable, "-c", _PUBLISHER, str(settings.warehouse_dir), str(mid_copy)])
    _kill_9_at(proc, mid_copy, "the publisher stopped before its copy")

    snapshot = snapshot_path(settings)
    assert list(snapshot.parent.glob("*.tmp")), "the kill left a half-copied snapshot"
    con = duckdb.connect(str(snapshot), read_only=True)
    try:  # the previous snapshot, whole
        assert con.execute("select count(*), max(i) from t").fetchall() == [(200_000, 1)]
    finally:
        con.close()
    con = reader(settings)  # the live file: the killed session had committed its change
    try:
        assert con.execute("select max(i) from t").fetchall() == [(2,)]
    finally:
        con.close()
    with writer(settings) as con:  # the lock died with the process; the next session publishes
        con.execute("create or replace table u as select 1 as x")
    assert not list(snapshot.parent.glob("*.tmp"))
    con = duckdb.connect(str(snapshot), read_only=True)
    try:
        assert con.execute("select max(i) from t union all select x from u").fetchall() == [(2,), (1,)]
    finally:
        con.close()


_DBT_KILLED_MID_WRITE = """
import re
import sys
import time
from pathlib import Path

from dbt.adapters.duckdb.environments import local
from dbt.cli.main import dbtRunner

marker, model_dir, stop_at = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
real = local.DuckDBCursorWrapper.execute
writes = 0


def execute(self, sql, bindings=None):  # the stop_at-th file write of the model reaches half, then hangs
    global writes
    found = re.search(r"\\) to '([^']+[.]parquet)' \\(([^()]*)\\)\\s*$", sql)
    if "copy (" in sql and found and found.group(1).startswith(model_dir):
        writes += 1
        if writes == stop_at:
            path, options = Path(found.group(1)), found.group(2)
            whole = marker.with_suffix(".parquet")
            real(self, sql.replace(found.group(1), str(whole)))
            # where DuckDB writes before its rename: tmp_<name> beside the file (option use_tmp_file, by
            # default when the file exists), else the file itself
            tmp = "use_tmp_file true" in options or (path.exists() and "use_tmp_file false" not in options)
            data = whole.read_bytes()
            (path.with_name("tmp_" + path.name) if tmp else path).write_bytes(data[: len(data) // 2])
            marker.touch()
            time.sleep(3600)
    return real(self, sql, bindings)


local.DuckDBCursorWrapper.execute = execute
dbtRunner().invoke(sys.argv[4:])
"""


def test_kill_9_while_dbt_replaces_lake_partitions(tmp_path: Path) -> None:
    """``dbt run --vars '{partition_keys: [...]}'`` killed (SIGKILL) half-way through writing the second
    partition's Parquet file (the write is made to stop there; the kill is real): readers still answer, each
    partition old (0225) or new (0000), never a half-written file; a re-run of the same keys converges on
    the rows of a clean full build and leaves no temporary file."""
    from tests.support.dbt_runs import DBT_PROJECT_DIR, load_fixture_rows, run_dbt
    from tests.support.request_partitions import facts, raw_file, rewrite

    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path / "warehouse")})
    load_fixture_rows(settings, tmp_path / "files")
    model = settings.lake_dir / "models" / "fct_request"

    def run(*args: str) -> None:
        result = run_dbt(settings, "run", "--select", "fct_request", *args, target=tmp_path / "target")
        assert result.returncode == 0, result.stdout[-6000:]

    run_dbt(settings, "run", "--select", "+fct_request", target=tmp_path / "target")
    before = facts(settings)
    assert sorted(before) == ["0000", "0225"]
    for key in before:
        rewrite(raw_file(settings, key), "select * replace (request_tokens + 7 as request_tokens) from raw")
    keys = ["--vars", '{partition_keys: ["0000", "0225"]}']

    mid_write = tmp_path / "mid-write"
    args = ["run", "--select", "fct_request", *keys, "--profiles-dir", str(DBT_PROJECT_DIR)]
    args += ["--target-path", str(tmp_path / "killed"), "--log-path", str(tmp_path / "killed")]
    env = {**os.environ, "WAREHOUSE_DIR": str(settings.warehouse_dir), "BURSTGPT_START_DATE": ""}
    script = [sys.executable, "-c", _DBT_KILLED_MID_WRITE, str(mid_write), str(model), "2", *args]
    proc = subprocess.Popen(script, cwd=DBT_PROJECT_DIR, env=env)
    _kill_9_at(proc, mid_write, "dbt stopped before its second partition write")

    assert [p.name for p in model.glob("*/tmp_*")] == ["tmp_data_0.parquet"], "no half-written file left"
    killed = facts(settings)  # readers answer: 0000 replaced (new rows), 0225 not yet (old rows, whole)
    assert sorted(killed) == ["0000", "0225"]
    assert killed["0225"] == before["0225"]
    assert len(killed["0000"]) == len(before["0000"]) and killed["0000"] != before["0000"]

    run(*keys)  # the re-run of the same partitions converges and leaves no temporary
    assert not list(model.glob("*/tmp_*"))
    rerun = facts(settings)
    run("--full-refresh")
    assert rerun == facts(settings)
    assert rerun != before


# 61 random bits in each token count: the new rows need more room than the old file frees when it is overwritten
_BIGGER_ROWS = ", ".join(
    f"{column} + (hash(_row_number + {i}) >> 3)::bigint as {column}"
    for i, column in enumerate(["request_tokens", "response_tokens", "total_tokens"])
)


def test_disk_full_while_dbt_replaces_lake_partitions(tmp_path: Path) -> None:
    """``dbt run --vars '{partition_keys: [...]}'`` on a full disk (a small tmpfs under fct_request's lake
    folder, filled up), replacing two partitions with rows that need more room than the old files: dbt fails,
    naming the model and "No space left on device"; every ``data_*.parquet`` stays byte for byte (or, had one
    been replaced before the disk filled, whole) and readers answer each partition old or new, never from a
    half-written file; once space is freed, a re-run of the same keys converges on the rows of a clean full
    build and leaves no temporary file.

    Only the model's folder is on the small disk: with the whole warehouse there, dbt stops at its first commit
    to ``trace.duckdb.wal`` ("Failed to commit ... No space left on device", no model named), before any lake
    file is written."""
    from tests.support.dbt_runs import load_fixture_rows, run_dbt
    from tests.support.request_partitions import facts, raw_file, rewrite

    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path / "warehouse")})
    load_fixture_rows(settings, tmp_path / "files")
    model = settings.lake_dir / "models" / "fct_request"

    def run(*args: str) -> subprocess.CompletedProcess:
        return run_dbt(settings, "run", "--select", "fct_request", *args, target=tmp_path / "target")

    def files() -> dict[str, bytes]:
        return {str(p.relative_to(model)): p.read_bytes() for p in sorted(model.glob("*/data_*.parquet"))}

    def whole(name: str) -> bool:
        try:
            duckdb.sql(f"select count(*) from read_parquet('{model / name}')").fetchall()
        except duckdb.Error:
            return False
        return True

    with _small_disk(model, "8m") as disk:
        built = run_dbt(settings, "run", "--select", "+fct_request", target=tmp_path / "target")
        assert built.returncode == 0, built.stdout[-6000:]
        before, before_files = facts(settings), files()
        assert sorted(before) == ["0000", "0225"]
        assert sorted(before_files) == ["_partition=0000/data_0.parquet", "_partition=0225/data_0.parquet"]
        for key in before:
            rewrite(raw_file(settings, key), f"select * replace ({_BIGGER_ROWS}) from raw")
        keys = ["--vars", '{partition_keys: ["0000", "0225"]}']

        filler = _fill(disk)
        failed = run(*keys)
        said = failed.stdout + failed.stderr
        assert failed.returncode != 0, said[-6000:]
        assert "fct_request" in said and "No space left on device" in said, said[-6000:]
        after_files = files()
        assert sorted(after_files) == sorted(before_files)
        for name, data in after_files.items():  # as it was, or (the disk filled after it) replaced whole
            assert data == before_files[name] or whole(name), f"{name} is half-written"
        assert not list(model.glob("*/tmp_*")), "DuckDB removes the temporary of a failed write"
        readers = facts(settings)  # readers answer
        assert sorted(readers) == sorted(before)

        filler.unlink()  # space freed: the re-run of the same partitions converges and leaves no temporary
        rerun = run(*keys)
        assert rerun.returncode == 0, rerun.stdout[-6000:]
        assert not list(model.glob("*/tmp_*"))
        after = facts(settings)
        for key in before:  # each partition was old or new while the disk was full, never a half-written file
            assert readers[key] in (before[key], after[key]), key
            assert after[key] != before[key] and len(after[key]) == len(before[key]), key
        full = run("--full-refresh")
        assert full.returncode == 0, full.stdout[-6000:]
        assert after == facts(settings)
