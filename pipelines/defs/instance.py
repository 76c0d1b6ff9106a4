"""The one Dagster instance the CLI, the UI and the tests share (``$DAGSTER_HOME``)."""

from __future__ import annotations

import dagster as dg

from pipelines.settings import Settings

DAGSTER_YAML = """\
# Written by trace-warehouse. One instance for the CLI, `make dev` and the tests.
# Writers of trace.duckdb run in the pool `duckdb_writer`; a limit of one serializes them.
concurrency:
  pools:
    default_limit: 1
telemetry:
  enabled: false
"""


def ensure_dagster_home(settings: Settings) -> str:
    """Create ``$DAGSTER_HOME`` with its dagster.yaml if missing; returns its path. Child processes get it
    through ``settings.child_environment``."""
    home = settings.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        config.write_text(DAGSTER_YAML, encoding="utf-8")
    return str(home)


def open_instance(settings: Settings) -> dg.DagsterInstance:
    """The shared instance in ``settings.dagster_home`` (created if missing)."""
    return dg.DagsterInstance.from_config(ensure_dagster_home(settings))
