"""The one Dagster instance the CLI, the UI and the tests share (``$DAGSTER_HOME``)."""

from __future__ import annotations

import dagster as dg

from pipelines.settings import Settings

_HEADER = "# Written by trace-warehouse."
DAGSTER_YAML = f"""\
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
"""


def ensure_dagster_home(settings: Settings) -> str:
    """Create ``$DAGSTER_HOME`` with its dagster.yaml if missing (or written by an older version of this
    project; a dagster.yaml of the user's own is left alone); returns its path.
    Child processes get it through ``pipelines.settings.child_environment``."""
    home = settings.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    current = config.read_text(encoding="utf-8") if config.exists() else None
    if current is None or (current.startswith(_HEADER) and current != DAGSTER_YAML):
        config.write_text(DAGSTER_YAML, encoding="utf-8")  # new, or ours from an older version
    return str(home)


def open_instance(settings: Settings) -> dg.DagsterInstance:
    """The shared instance in ``settings.dagster_home`` (created if missing)."""
    return dg.DagsterInstance.from_config(ensure_dagster_home(settings))
