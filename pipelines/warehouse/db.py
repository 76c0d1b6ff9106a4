"""``trace.duckdb``: one writer at a time, views over the lake, read-only readers.

Heavy work never holds the database: loads write Parquet from an in-memory DuckDB. Only the short step that
(re)creates views, and dbt, open ``trace.duckdb`` for writing, under an OS file lock on
``$WAREHOUSE_DIR/.writer.lock`` (the backstop for processes outside Dagster, whose own pool of one
serializes writers inside it).

DuckDB admits no reader while another process writes the file. So every write session that changed the file
ends by publishing a snapshot — the closed, checkpointed file copied to ``published/trace.duckdb`` and
swapped in atomically — and a reader answers from the last snapshot while another process holds the writer
lock (a run is under way: between its write sessions, dbt's included, the live file is free, and readers
polling it would keep the run's next session out), or when it finds the live file locked. A session that
changed nothing (views already current) copies nothing. The other way round, a reader that opened the live
file just before a run began keeps the run's writer out until it closes: the writer tries again for a while
(``WRITER_WAIT_S``; dbt's profile does the same with its connect retries) instead of failing the run.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import duckdb
from filelock import FileLock, Timeout

from pipelines.atomic_write import replacing, write_bytes
from pipelines.settings import Settings

WRITER_WAIT_S = 60.0  # how long a writer waits for readers of the live file to close it


def _connect_writable(path: Path) -> duckdb.DuckDBPyConnection:
    """Open ``path`` for writing; while a reader holds it open (DuckDB's file lock), try again."""
    deadline = time.monotonic() + WRITER_WAIT_S
    while True:
        try:
            return duckdb.connect(str(path))
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _writer_lock(settings: Settings) -> FileLock:
    # One lock object per path in this process, so a run that holds the lock can open the writer again.
    return FileLock(str(settings.lock_path), is_singleton=True, thread_local=False)


def _another_process_writes(settings: Settings) -> bool:
    """Whether another process holds the writer lock (this process's own hold does not count): a shared,
    non-blocking ``flock`` on the lock file, released at once, fails only against a writer's exclusive one."""
    if _writer_lock(settings).is_locked or not settings.lock_path.exists():
        return False
    fd = os.open(settings.lock_path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing releases the shared lock
    return False


@contextmanager
def writer_lock(
    settings: Settings, *, wait_message: str = "waiting for the warehouse writer lock"
) -> Iterator[None]:
    """Hold ``$WAREHOUSE_DIR/.writer.lock``; says on stderr when it has to wait for another process."""
    settings.warehouse_dir.mkdir(parents=True, exist_ok=True)
    lock = _writer_lock(settings)
    try:
        lock.acquire(timeout=0.5)
    except Timeout:
        print(f"{wait_message} ({settings.lock_path})", file=sys.stderr, flush=True)
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


@contextmanager
def writer(settings: Settings) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-write connection to ``trace.duckdb``, held under the writer lock; publishes a snapshot after."""
    with writer_lock(settings):
        con = _connect_writable(settings.duckdb_path)
        try:
            con.execute("set TimeZone = 'UTC'")
            yield con
        finally:
            con.close()
        publish_snapshot(settings)


def snapshot_path(settings: Settings) -> Path:
    return settings.warehouse_dir / "published" / "trace.duckdb"


def _stamp(path: Path) -> str:
    st = path.stat()
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"


def publish_snapshot(settings: Settings) -> Path:
    """Copy the closed ``trace.duckdb`` to ``published/`` (atomic swap) unless the snapshot already is of
    this very file (same size, mtime and inode as recorded at its copy). Call while holding the writer lock."""
    target = snapshot_path(settings)
    stamp_file = target.with_name(target.name + ".source")
    # Half-copied temp files of a publisher killed mid-copy (kill -9): no other one runs while we hold the lock.
    for stale in target.parent.glob(f".{target.name}*.tmp"):
        stale.unlink(missing_ok=True)
    stamp = _stamp(settings.duckdb_path)
    if target.exists() and stamp_file.exists() and stamp_file.read_text(encoding="utf-8") == stamp:
        return target
    with replacing(target) as tmp:
        shutil.copyfile(settings.duckdb_path, tmp)
    write_bytes(stamp_file, stamp.encode())
    return target


def _connect_read_only(path: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(path), read_only=True)
    con.execute("set TimeZone = 'UTC'")
    return con


def reader(settings: Settings) -> duckdb.DuckDBPyConnection:
    """A read-only connection for queries: the live file, or the last published snapshot while a run writes."""
    if not settings.duckdb_path.exists():
        raise FileNotFoundError(
            f"{settings.duckdb_path} does not exist yet: run `make run` or `trace-warehouse run` first"
        )
    snapshot = snapshot_path(settings)
    if not (snapshot.exists() and _another_process_writes(settings)):
        try:
            return _connect_read_only(settings.duckdb_path)
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or not snapshot.exists():
                raise
    published = datetime.fromtimestamp(snapshot.stat().st_mtime, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    print(
        f"note: a run is writing {settings.duckdb_path.name}; answering from the snapshot published "
        f"{published} ({snapshot})",
        file=sys.stderr,
    )
    return _connect_read_only(snapshot)
