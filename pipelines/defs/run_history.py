"""The last run recorded in the Dagster instance (``$DAGSTER_HOME``), for ``trace-warehouse status``."""

from __future__ import annotations

from datetime import UTC, datetime

import dagster as dg

from pipelines.settings import Settings
from pipelines.status import RunInfo


def _time(ts: float | None) -> datetime | None:
    return datetime.fromtimestamp(ts, UTC) if ts else None


def last_run(settings: Settings) -> RunInfo | None:
    """The newest run of the instance, or None when it has none (or there is no instance yet)."""
    if not (settings.dagster_home / "dagster.yaml").exists():
        return None
    with dg.DagsterInstance.from_config(str(settings.dagster_home)) as instance:
        records = instance.get_run_records(limit=1)
    if not records:
        return None
    record = records[0]
    run = record.dagster_run
    return RunInfo(
        run_id=run.run_id,
        status=run.status.value,
        started=_time(record.start_time),
        ended=_time(record.end_time),
        tags=dict(run.tags),
    )
