"""Dagster's SQLite event log with its database connections kept open.

Dagster's own ``SqliteEventLogStorage`` creates an engine, opens a connection and closes it again for every
statement: each stored event (an asset check's result, a materialization, a planned asset) costs several of
them, and closing the last connection of a WAL database checkpoints it. A whole-graph run of the sample stores
about 2,000 events and spent about a fifth of its time there.

This subclass keeps an engine with a small pool of open connections per database file (the few most recently
used files) and sets ``synchronous = NORMAL`` on them: in WAL mode a commit is then durable against a crash
of the process, and the disk is synced at checkpoints instead of at every commit. After each stored event the
run's database is checkpointed, so its file changes as before: Dagster's watchers (the UI's live run logs)
wait for that. Schema, files and contents are Dagster's own: the UI, the daemon and ``dagster`` commands
read them as before, with or without this class.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as db
from dagster._core.events.log import EventLogEntry
from dagster._core.storage.event_log.sqlite.sqlite_event_log import INDEX_SHARD_NAME, SqliteEventLogStorage
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS, create_db_conn_string
from dagster._serdes import ConfigurableClassData
from sqlalchemy.engine import Connection, Engine

# Databases kept open per process: the index's and the current runs' (the UI reads a few runs at a time).
OPEN_DATABASES = 8


def _set_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.close()


class KeptOpenSqliteEventLogStorage(SqliteEventLogStorage):
    """``SqliteEventLogStorage`` whose database connections stay open between statements."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None):
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._engines_lock = threading.Lock()  # Dagster's _db_lock is held around statements: not re-entrant
        super().__init__(base_dir, inst_data)

    @classmethod
    def from_config_value(cls, inst_data, config_value):
        return cls(inst_data=inst_data, **config_value)

    def open_databases(self) -> list[str]:
        """The shards (run ids, ``index``) whose engines are open, least recently used first."""
        with self._engines_lock:
            return list(self._engines)

    def _engine(self, shard: str) -> Engine:
        with self._engines_lock:
            engine = self._engines.pop(shard, None)
            if engine is None:
                engine = db.create_engine(
                    create_db_conn_string(self._base_dir, shard),
                    connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS, "check_same_thread": False},
                    pool_size=2,
                    max_overflow=4,
                )
                db.event.listen(engine, "connect", _set_pragmas)
                if shard not in self._initialized_dbs:
                    self._initdb(engine)
                    self._initialized_dbs.add(shard)
            self._engines[shard] = engine
            while len(self._engines) > OPEN_DATABASES:
                self._engines.popitem(last=False)[1].dispose()
            return engine

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        with self._db_lock:
            engine = self._engine(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def store_event(self, event: EventLogEntry) -> None:
        super().store_event(event)
        engine = self._engine(event.run_id)
        with self._db_lock, engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    def has_table(self, table_name: str) -> bool:
        engine = self._engine(INDEX_SHARD_NAME)
        with engine.connect() as conn:
            return bool(engine.dialect.has_table(conn, table_name))

    def wipe(self) -> None:
        self._close_databases()  # before Dagster deletes their files
        super().wipe()

    def dispose(self) -> None:
        self._close_databases()
        super().dispose()

    def _close_databases(self) -> None:
        with self._engines_lock:
            for engine in self._engines.values():
                engine.dispose()
            self._engines.clear()
