"""The one Dagster instance the CLI, the UI and the tests share (``$DAGSTER_HOME``)."""

from __future__ import annotations

import os

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
    """Create ``$DAGSTER_HOME`` with its dagster.yaml if missing, and export it for this process."""
    home = settings.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        config.write_text(DAGSTER_YAML, encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(home)
    return str(home)
