"""The project's Dagster event log (pipelines/defs/event_log_storage.py): Dagster's SQLite files, written with
connections kept open. Dagster's own storage reads what it wrote, a watcher (the UI's live run logs) sees each
event while the connections are open, and only a few databases stay open."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from pathlib import Path

import dagster as dg
from dagster._core.events.log import EventLogEntry
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage

from pipelines.defs.event_log_storage import OPEN_DATABASES, KeptOpenSqliteEventLogStorage
from pipelines.defs.instance import open_instance
from pipelines.settings import Settings


def _message(run_id: str, text: str) -> EventLogEntry:
    return EventLogEntry(
        error_info=None,
        level=logging.INFO,
        user_message=text,
        run_id=run_id,
        timestamp=time.time(),
        step_key=None,
        job_name="job",
        dagster_event=None,
    )


@dg.asset
def numbers() -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"rows": 3})


@dg.asset_check(asset=numbers)
def numbers_positive() -> dg.AssetCheckResult:
    return dg.AssetCheckResult(passed=True)


def test_a_run_of_the_project_instance_reads_back_with_dagsters_own_storage(warehouse: Settings) -> None:
    with open_instance(warehouse) as instance:
        assert isinstance(instance.event_log_storage, KeptOpenSqliteEventLogStorage)
        result = dg.materialize([numbers, numbers_positive], instance=instance)
        assert result.success
        ours = [(e.dagster_event_type, e.message) for e in instance.all_logs(result.run_id)]
    stock = SqliteEventLogStorage(str(warehouse.dagster_home / "history" / "runs"))
    try:
        records = stock.get_records_for_run(result.run_id).records
        assert [(r.event_log_entry.dagster_event_type, r.event_log_entry.message) for r in records] == ours
        latest = stock.get_latest_materialization_events([dg.AssetKey("numbers")])[dg.AssetKey("numbers")]
        assert latest is not None and latest.asset_materialization.metadata["rows"].value == 3
        check = stock.get_latest_asset_check_execution_by_key([numbers_positive.check_key])
        assert check[numbers_positive.check_key].status.value == "SUCCEEDED"
    finally:
        stock.dispose()


def test_a_watcher_sees_each_event_while_the_connections_stay_open(tmp_path: Path) -> None:
    writer = KeptOpenSqliteEventLogStorage(str(tmp_path))
    watcher = SqliteEventLogStorage(str(tmp_path))  # as another process (the UI) would have it
    run_id = str(uuid.uuid4())
    seen: list[str] = []
    arrived = threading.Event()

    def callback(event: EventLogEntry, _cursor) -> None:
        seen.append(event.user_message)
        if len(seen) == 4:
            arrived.set()

    try:
        writer.store_event(_message(run_id, "first"))
        watcher.watch(run_id, None, callback)
        for text in ("second", "third", "fourth"):
            writer.store_event(_message(run_id, text))
            time.sleep(0.2)
        assert arrived.wait(timeout=20), f"the watcher saw {seen}"
        assert seen == ["first", "second", "third", "fourth"]
        assert run_id in writer.open_databases()  # seen while the writer's connections were open
    finally:
        watcher.end_watch(run_id, callback)
        watcher.dispose()
        writer.dispose()


def test_only_a_few_databases_stay_open_and_every_run_reads_back(tmp_path: Path) -> None:
    storage = KeptOpenSqliteEventLogStorage(str(tmp_path))
    runs = [str(uuid.uuid4()) for _ in range(OPEN_DATABASES + 4)]
    try:
        for run_id in runs:
            storage.store_event(_message(run_id, f"in {run_id}"))
        assert len(storage.open_databases()) == OPEN_DATABASES
        assert storage.open_databases()[-1] == runs[-1]
        for run_id in runs:
            records = storage.get_records_for_run(run_id).records
            assert [r.event_log_entry.user_message for r in records] == [f"in {run_id}"]
        storage.wipe()
        assert storage.open_databases() == ["index"] and not list(tmp_path.glob("*-*.db"))
    finally:
        storage.dispose()
