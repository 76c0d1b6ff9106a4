"""The one Dagster instance the CLI, the UI and the tests share (``$DAGSTER_HOME``)."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg

from pipelines.settings import Settings

_HEADER = "# Written by trace-warehouse."


def dagster_yaml(home: Path) -> str:
    """The project's dagster.yaml for the instance in ``home`` (the event log's folder is an absolute path)."""
    event_log_dir = json.dumps(str(home.resolve() / "history" / "runs"))
    return f"""\
{_HEADER} One instance for the CLI, `make dev` and the tests.
# Writers of trace.duckdb run in the pool `duckdb_writer`; a limit of one serializes them.
concurrency:
  pools:
    default_limit: 1
# A local tool, not a product tour: no telemetry, no first-visit newsletter/onboarding dialog in the UI.
telemetry:
  enabled: false
nux:
  enabled: false
# Dagster's SQLite event log in its usual place, with its connections kept open (pipelines/defs/event_log_storage.py).
event_log_storage:
  module: pipelines.defs.event_log_storage
  class: KeptOpenSqliteEventLogStorage
  config:
    base_dir: {event_log_dir}
"""


def ensure_dagster_home(settings: Settings) -> str:
    """Create ``$DAGSTER_HOME`` with its dagster.yaml if missing (or written by an older version of this
    project; a dagster.yaml of the user's own is left alone); returns its path.
    Child processes get it through ``pipelines.settings.child_environment``."""
    home = settings.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    current = config.read_text(encoding="utf-8") if config.exists() else None
    ours = dagster_yaml(home)
    if current is None or (current.startswith(_HEADER) and current != ours):
        config.write_text(ours, encoding="utf-8")  # new, or ours from an older version or another folder
    return str(home)


def open_instance(settings: Settings) -> dg.DagsterInstance:
    """The shared instance in ``settings.dagster_home`` (created if missing)."""
    return dg.DagsterInstance.from_config(ensure_dagster_home(settings))
