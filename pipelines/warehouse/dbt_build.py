"""Building the warehouse's models with dbt: targets, arguments, the writer lock, incremental partitions.

Plain Python, no Dagster: the dbt assets (``pipelines/defs/dbt.py``), ``python -m
pipelines.warehouse.dbt_build`` (the manifest step of ``make install``) and the benchmarks all use it.

Incremental refresh: the raw partitions that changed since the last build (``pipelines/lake/pending.py``)
go to dbt in the environment variable ``PARTITION_KEYS_VARIABLE`` (what var ``partition_keys`` gives by hand;
the variable leaves dbt's last parse in use, a new var value does not), so the incremental facts replace only
those partitions (every other model is rebuilt whole); after a successful build the keys of every family
whose facts were built are consumed. ``[NO_PARTITIONS]`` replaces nothing; no keys at all rebuilds
everything.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from pipelines.lake.pending import consumable, consume, pending
from pipelines.settings import (
    ENGINES,
    PROJECT_ROOT,
    SETTINGS_BY_VAR,
    Settings,
    child_environment,
    load_settings,
)
from pipelines.warehouse.db import writer, writer_lock
from pipelines.warehouse.spark_views import publish_spark_build
from pipelines.warehouse.views import record_engine

DBT_PROJECT_DIR = PROJECT_ROOT / "dbt_project"
SPARK_THRIFT_TARGET = "spark_thrift"

# A partition key no lake partition has: "replace nothing" for the incremental facts (an empty list would
# mean "no window", i.e. rebuild everything).
NO_PARTITIONS = "__none__"

# The partitions a build replaces, as a JSON list (macros/partition_window.sql reads it when dbt executes).
PARTITION_KEYS_VARIABLE = "TRACE_PARTITION_KEYS"

# dbt's unit tests check the SQL against fixed inputs: they belong to development and CI (`make test` runs
# them with `dbt test --select test_type:unit`), not to every build of the data (dbt's own advice; they
# were 2.4 s of a 5.7 s build on the tiny input).
BUILD_COMMAND = ["build", "--exclude-resource-type", "unit_test"]


def dbt_target(settings: Settings, engine: str | None = None) -> str:
    """The profiles.yml output for ``engine``: ``duckdb``, ``spark`` (session) or ``spark_thrift``."""
    engine = engine or settings.engine
    return SPARK_THRIFT_TARGET if engine == "spark" and settings.spark_thrift_host else engine


def target_path(engine: str) -> Path:
    """dbt's target folder for ``engine``, relative to the dbt project (one per engine)."""
    return Path("target") / engine


def local_dbt() -> Path:
    """The ``dbt`` beside this interpreter: this environment's dbt-core (it may not exist)."""
    return Path(sys.executable).with_name("dbt")


def dbt_executable() -> str:
    """The ``dbt`` beside this interpreter (a venv's bin/ may not be on PATH), else ``dbt`` from PATH."""
    local = local_dbt()
    return str(local) if local.exists() else "dbt"


def partition_keys_environment(partition_keys: Iterable[str] | None = None) -> dict[str, str]:
    """dbt's environment for a build that replaces only ``partition_keys`` (none of them for an empty list);
    with None the variable is empty, and everything is rebuilt (whatever the caller's environment held)."""
    keys = None if partition_keys is None else sorted(set(partition_keys)) or [NO_PARTITIONS]
    return {PARTITION_KEYS_VARIABLE: "" if keys is None else json.dumps(keys)}


def pending_partitions(settings: Settings) -> dict[str, set[str]]:
    """Raw partitions changed since dbt last built the facts that read them."""
    with writer_lock(settings):
        return pending(settings)


def consume_partitions(
    settings: Settings, waiting: Mapping[str, set[str]], built_models: Iterable[str]
) -> None:
    """After a successful build: forget the pending keys of families whose every fact was built."""
    with writer_lock(settings):
        consume(settings, consumable(waiting, built_models))


def build_lock(settings: Settings, target: str) -> AbstractContextManager[None]:
    """What a dbt build holds: the writer lock, except on a Spark Thrift server (it serializes itself and
    leaves trace.duckdb alone until :func:`after_build` publishes the views, under the lock)."""
    if target == SPARK_THRIFT_TARGET:
        return nullcontext()
    return writer_lock(settings, wait_message="waiting for the warehouse writer lock before dbt build")


def after_build(settings: Settings, target: str, manifest_path: Path) -> list[str]:
    """Make ``trace.duckdb`` show this build: views over a Spark build's tables, and ``meta.dbt_engine``."""
    with writer(settings) as con:
        if target == "duckdb":
            record_engine(con, "duckdb", settings.duckdb_path)
            return []
        manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else None
        return publish_spark_build(con, settings, manifest)


def lineage_select(families: Iterable[str]) -> list[str]:
    """``--select`` of every model and test downstream of these families' ``raw``/``quarantine`` sources:
    what the automation's run of a changed family builds (Dagster subsets the dbt assets to
    ``raw/<family>``'s downstream)."""
    sources = [f"source:{schema}.{fam}+" for fam in sorted(families) for schema in ("raw", "quarantine")]
    return ["--select", " ".join(sources)] if sources else []


def run_dbt(
    settings: Settings,
    args: list[str],
    *,
    engine: str | None = None,
    target_dir: Path | None = None,
    capture: bool = False,
    partition_keys: Iterable[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``dbt <args>`` in the dbt project for ``engine``, with the settings in its environment (and
    ``partition_keys``: the partitions a build replaces, :func:`partition_keys_environment`)."""
    engine = engine or settings.engine
    argv = [
        dbt_executable(),
        *args,
        "--project-dir",
        str(DBT_PROJECT_DIR),
        "--profiles-dir",
        str(DBT_PROJECT_DIR),
    ]
    argv += ["--target", dbt_target(settings, engine)]
    out = str(target_dir or DBT_PROJECT_DIR / target_path(engine))
    argv += ["--target-path", out, "--log-path", out]
    env = child_environment(
        settings,
        TRACE_ENGINE=engine,
        DBT_SEND_ANONYMOUS_USAGE_STATS="false",
        **partition_keys_environment(partition_keys),
    )
    return subprocess.run(argv, cwd=DBT_PROJECT_DIR, env=env, capture_output=capture, text=True, check=False)


def prepare(settings: Settings, engine: str | None = None) -> Path:
    """``dbt parse`` for ``engine`` (no database opened, no Spark session): writes the manifest the Dagster
    definitions read, ``dbt_project/target/<engine>/manifest.json``; returns its path."""
    engine = engine or settings.engine
    proc = run_dbt(settings, ["parse", "--quiet"], engine=engine, capture=True)
    if proc.returncode != 0:
        raise RuntimeError(
            f"dbt parse failed ({proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
        )
    return DBT_PROJECT_DIR / target_path(engine) / "manifest.json"


def main(argv: list[str] | None = None) -> int:
    """``python -m pipelines.warehouse.dbt_build [--engine duckdb|spark]``: parse the dbt project into its
    manifest (the Makefile's install step; run it again after changing dbt files). ``--engine spark`` needs
    the ``spark`` extra installed."""
    parser = argparse.ArgumentParser(description="parse the dbt project into its manifest (dbt parse)")
    parser.add_argument(
        "--engine", choices=ENGINES, help=f"dbt target ({SETTINGS_BY_VAR['TRACE_ENGINE'].cli_help})"
    )
    args = parser.parse_args(argv)
    path = prepare(load_settings(), args.engine)
    print(f"dbt manifest: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
