"""The one place that reads the warehouse's settings, and the only module that reads the process
environment.

Every setting comes from an environment variable (``SETTINGS_TABLE`` lists them all, with their defaults
and meanings; ``SETTINGS_VARS`` is their names); the CLI's flags
override the same variables (:func:`load_settings` ``overrides``), so the CLI, the Dagster UI and the tests
resolve them identically. The resolved :class:`Settings` is then *passed* — to library functions as an
argument, to Dagster assets through resources — never read again. Child processes that read the
variables themselves (dbt's profiles.yml, ``dagster dev``) get them from :func:`child_environment`.
Relative paths resolve against the project root, never against the current directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Literal

Source = Literal["sample", "mirror", "remote"]
Engine = Literal["duckdb", "spark"]

SOURCES: tuple[Source, ...] = ("sample", "mirror", "remote")
ENGINES: tuple[Engine, ...] = ("duckdb", "spark")

PROJECT_ROOT = Path(__file__).resolve().parent.parent

DEFAULT_GITHUB_RAW_URL = "https://raw.githubusercontent.com"
DEFAULT_GITHUB_URL = "https://github.com"


@dataclass(frozen=True)
class SettingVar:
    """One environment variable the settings are read from: its CLI flag, default and meaning (Markdown)."""

    name: str
    default: str
    meaning: str
    flag: str = ""  # the CLI flag (or make variable) that overrides it, if any


# Every variable the settings are read from, with its help text: the one list. The docs site's configuration
# page is generated from it (docs/hooks.py); tests clear these variables so a developer's shell cannot leak in.
SETTINGS_TABLE: tuple[SettingVar, ...] = (
    SettingVar("WAREHOUSE_DIR", "`./warehouse`", "everything the pipeline writes"),
    SettingVar("TRACE_SOURCE", "`sample`", "where the files come from: `sample` · `mirror` · `remote`",
               "`run --source`"),
    SettingVar("TRACE_MIRROR_DIR", "`$WAREHOUSE_DIR/sample-mirror` for `sample`",
               "mirror root (required for `mirror`)", "`run --mirror`"),
    SettingVar("TRACE_ENGINE", "`duckdb`", "`duckdb` · `spark`: the dbt target the models build on",
               "`run --engine`"),
    SettingVar("TRACE_GITHUB_RAW_URL", "`https://raw.githubusercontent.com`", "GitHub raw endpoint"),
    SettingVar("TRACE_GITHUB_URL", "`https://github.com`", "GitHub releases endpoint"),
    SettingVar("HF_ENDPOINT", "huggingface_hub's default", "HuggingFace endpoint"),
    SettingVar("HF_TOKEN", "unset", "HuggingFace token (never logged)"),
    SettingVar("BURSTGPT_START_DATE", "unset",
               "calendar date (`YYYY-MM-DD`) of BurstGPT day 0, which upstream does not publish; unset, the "
               "marts and figures say “day N” and relative weekdays"),
    SettingVar("DAGSTER_HOME", "`$WAREHOUSE_DIR/.dagster`", "the one Dagster instance (CLI, UI, tests)"),
    SettingVar("DAGSTER_PORT", "`3000`", "UI port, bound to 127.0.0.1", "`dev --port`, `make dev PORT=`"),
    SettingVar("TRACE_DOCS_PORT", "`3001`",
               "port of the docs server (`trace-warehouse docs`, started by `make dev`), bound to 127.0.0.1",
               "`docs --port`"),
    SettingVar("TRACE_DOCS_URL", "`http://127.0.0.1:$TRACE_DOCS_PORT`",
               "where the UI's docs and report links point (e.g. behind a proxy)"),
    SettingVar("TRACE_DROP_LANDED", "`0`",
               "`1`: delete a landed CSV once its Parquet is published (halves the disk a full load needs). Its "
               "landing-manifest document keeps size, sha256, ETag/mtime and says `dropped`, so an unchanged "
               "upstream file is not fetched again and its load is skipped; a changed one lands and loads, then "
               "is dropped again. A lost lake file whose landed copy was dropped is a load error naming the "
               "file (delete its `manifest/<path>.json` to land it again)"),
    SettingVar("TRACE_DUCKDB_MEMORY_LIMIT", "`768MB`",
               "DuckDB's memory cap in dbt builds; bigger sorts and joins spill to `trace.duckdb.tmp/`. Exact "
               "percentiles cannot spill: `utilization_percentiles` over a week of GPU_UTIL at 293 nodes needs "
               "`8GB` with `TRACE_UTILIZATION_PERCENTILES=exact`"),
    SettingVar("TRACE_UTILIZATION_PERCENTILES", "`auto`",
               "`exact`: `utilization_percentiles` interpolates over every value (memory grows with the data); "
               "`binned`: its percentiles are read off `analysis.utilization_cdf` — the upper edge of the bin "
               "holding the exact percentile, `percentile_error` = the bin's width, bounded memory at any scale; "
               "`auto`: exact up to 20 M utilization samples, binned beyond. The `percentile_method` column "
               "says which"),
    SettingVar("SPARK_THRIFT_HOST", "unset → local session", "host of a Spark Thrift server for the `spark` engine"),
    SettingVar("SPARK_THRIFT_PORT", "unset", "port of that Thrift server"),
    SettingVar("SPARK_MASTER", "`local[*]`", "Spark master (local session and the Thrift launcher)"),
    SettingVar("SPARK_DRIVER_MEMORY", "`2g`", "Spark driver memory"),
    SettingVar("SPARK_SHUFFLE_PARTITIONS", "`2`", "`spark.sql.shuffle.partitions`"),
    SettingVar("SPARK_LOG_LEVEL", "unset (each launcher's own)", "Spark's log level"),
)  # fmt: skip
SETTINGS_VARS: tuple[str, ...] = tuple(var.name for var in SETTINGS_TABLE)
PERCENTILE_MODES = ("auto", "exact", "binned")


class SettingsError(ValueError):
    """A setting has a value the warehouse cannot use; the message names the variable."""


@dataclass(frozen=True)
class Settings:
    warehouse_dir: Path
    source: Source
    mirror_dir: Path | None
    engine: Engine
    github_raw_url: str
    github_url: str
    hf_endpoint: str | None
    hf_token: str | None = field(repr=False)
    burstgpt_start_date: date | None
    dagster_home: Path
    dagster_port: int
    docs_port: int = 3001
    docs_base_url: str | None = None  # default: http://127.0.0.1:<docs_port>
    spark_thrift_host: str | None = None
    spark_thrift_port: int | None = None
    duckdb_memory_limit: str = "768MB"  # DuckDB's cap in dbt builds (profiles.yml)
    # utilization_percentiles: exact (every value in memory), binned (off utilization_cdf, bounded memory), or
    # auto: exact up to 20 M utilization samples, binned beyond (models/analysis/utilization_percentiles.sql)
    utilization_percentiles: str = "auto"
    spark_master: str = "local[*]"
    spark_driver_memory: str = "2g"
    spark_log_level: str | None = None  # unset: each Spark launcher's own default
    spark_shuffle_partitions: int = 2
    # Delete a landed CSV once its Parquet is published; its size, sha256 and ETag stay in the manifest, so an
    # unchanged upstream file is still not fetched again (opt-in: halves the disk a full load needs).
    drop_landed: bool = False

    # Paths under $WAREHOUSE_DIR ------------------------------------------------------------------
    @property
    def landing_dir(self) -> Path:
        return self.warehouse_dir / "landing"

    @property
    def lake_dir(self) -> Path:
        return self.warehouse_dir / "lake"

    @property
    def raw_dir(self) -> Path:
        return self.lake_dir / "raw"

    @property
    def quarantine_dir(self) -> Path:
        return self.lake_dir / "quarantine"

    @property
    def rejects_dir(self) -> Path:
        return self.lake_dir / "rejects"

    @property
    def fits_dir(self) -> Path:
        """The fitted arrival and token-length models (``analysis.*_fits`` read them)."""
        return self.lake_dir / "fits"

    @property
    def duckdb_path(self) -> Path:
        return self.warehouse_dir / "trace.duckdb"

    @property
    def manifest_dir(self) -> Path:
        """One JSON document per landed file (see pipelines/sources/manifest.py)."""
        return self.warehouse_dir / "manifest"

    @property
    def docs_dir(self) -> Path:
        return self.warehouse_dir / "docs"

    @property
    def report_dir(self) -> Path:
        return self.warehouse_dir / "report"

    @property
    def exports_dir(self) -> Path:
        """Replay exports (`trace-warehouse export`, the `exports` assets) and their sidecars."""
        return self.warehouse_dir / "exports"

    @property
    def logs_dir(self) -> Path:
        """One log file per `trace-warehouse run`: Dagster's records and dbt's lines."""
        return self.warehouse_dir / "logs"

    @property
    def docs_url(self) -> str:
        """Where `trace-warehouse docs` serves docs/ and report/ (the links in the UI's metadata)."""
        return self.docs_base_url or f"http://127.0.0.1:{self.docs_port}"

    @property
    def dbt_runs_dir(self) -> Path:
        """dbt's target folders of this warehouse's builds (``<engine>/run_results.json``, compiled SQL, the
        partial parse): two warehouses built from one checkout never share them."""
        return self.warehouse_dir / "dbt"

    @property
    def spark_dir(self) -> Path:
        return self.warehouse_dir / "spark"

    @property
    def sample_mirror_dir(self) -> Path:
        return self.warehouse_dir / "sample-mirror"

    @property
    def lock_path(self) -> Path:
        """OS file lock held by every process that writes the warehouse."""
        return self.warehouse_dir / ".writer.lock"


def _resolve(path: str) -> Path:
    p = Path(path).expanduser()
    return (p if p.is_absolute() else PROJECT_ROOT / p).resolve()


def _choice(env: Mapping[str, str], name: str, default: str, allowed: tuple[str, ...]) -> str:
    value = env.get(name, "").strip() or default
    if value not in allowed:
        raise SettingsError(f"{name}={value!r} is not one of {', '.join(allowed)}")
    return value


def _int(env: Mapping[str, str], name: str, default: int | None) -> int | None:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not an integer") from None


def load_settings(
    env: Mapping[str, str] | None = None, *, overrides: Mapping[str, str | None] | None = None
) -> Settings:
    """Resolve the settings from ``env`` (default: the process environment); ``overrides`` (the CLI's
    flags, by variable name; ``None`` values are ignored) win over it."""
    env = dict(os.environ if env is None else env)
    env.update({k: v for k, v in (overrides or {}).items() if v is not None})
    warehouse_dir = _resolve(env.get("WAREHOUSE_DIR", "").strip() or "warehouse")
    source = _choice(env, "TRACE_SOURCE", "sample", SOURCES)
    engine = _choice(env, "TRACE_ENGINE", "duckdb", ENGINES)

    mirror_raw = env.get("TRACE_MIRROR_DIR", "").strip()
    if mirror_raw:
        mirror_dir: Path | None = _resolve(mirror_raw)
    elif source == "sample":
        mirror_dir = warehouse_dir / "sample-mirror"
    elif source == "mirror":
        raise SettingsError("TRACE_SOURCE=mirror needs TRACE_MIRROR_DIR (or `run --mirror DIR`)")
    else:
        mirror_dir = None

    start_raw = env.get("BURSTGPT_START_DATE", "").strip()
    try:
        start = date.fromisoformat(start_raw) if start_raw else None
    except ValueError:
        raise SettingsError(f"BURSTGPT_START_DATE={start_raw!r} is not a YYYY-MM-DD date") from None

    dagster_home_raw = env.get("DAGSTER_HOME", "").strip()
    return Settings(
        warehouse_dir=warehouse_dir,
        source=source,  # type: ignore[arg-type]
        mirror_dir=mirror_dir,
        engine=engine,  # type: ignore[arg-type]
        github_raw_url=(env.get("TRACE_GITHUB_RAW_URL", "").strip() or DEFAULT_GITHUB_RAW_URL).rstrip("/"),
        github_url=(env.get("TRACE_GITHUB_URL", "").strip() or DEFAULT_GITHUB_URL).rstrip("/"),
        hf_endpoint=(env.get("HF_ENDPOINT", "").strip().rstrip("/") or None),
        hf_token=env.get("HF_TOKEN") or None,
        burstgpt_start_date=start,
        dagster_home=_resolve(dagster_home_raw) if dagster_home_raw else warehouse_dir / ".dagster",
        dagster_port=_int(env, "DAGSTER_PORT", 3000) or 3000,
        docs_port=_int(env, "TRACE_DOCS_PORT", 3001) or 3001,
        docs_base_url=env.get("TRACE_DOCS_URL", "").strip().rstrip("/") or None,
        spark_thrift_host=env.get("SPARK_THRIFT_HOST", "").strip() or None,
        spark_thrift_port=_int(env, "SPARK_THRIFT_PORT", None),
        duckdb_memory_limit=env.get("TRACE_DUCKDB_MEMORY_LIMIT", "").strip() or "768MB",
        utilization_percentiles=_choice(env, "TRACE_UTILIZATION_PERCENTILES", "auto", PERCENTILE_MODES),
        spark_master=env.get("SPARK_MASTER", "").strip() or "local[*]",
        spark_driver_memory=env.get("SPARK_DRIVER_MEMORY", "").strip() or "2g",
        spark_log_level=env.get("SPARK_LOG_LEVEL", "").strip() or None,
        spark_shuffle_partitions=_int(env, "SPARK_SHUFFLE_PARTITIONS", 2) or 2,
        drop_landed=_choice(env, "TRACE_DROP_LANDED", "0", ("0", "1")) == "1",
    )


def settings_variables(settings: Settings) -> dict[str, str]:
    """The settings as the variables child processes read: dbt's profiles.yml (warehouse, engine, BurstGPT
    day 0, Spark and DuckDB tuning) and ``dagster dev`` (``DAGSTER_HOME``). Unset settings are ``""``."""
    variables = {
        "WAREHOUSE_DIR": str(settings.warehouse_dir),
        "TRACE_SOURCE": settings.source,
        "TRACE_ENGINE": settings.engine,
        "BURSTGPT_START_DATE": settings.burstgpt_start_date.isoformat()
        if settings.burstgpt_start_date
        else "",
        "DAGSTER_HOME": str(settings.dagster_home),
        "TRACE_DUCKDB_MEMORY_LIMIT": settings.duckdb_memory_limit,
        "TRACE_UTILIZATION_PERCENTILES": settings.utilization_percentiles,
        "SPARK_MASTER": settings.spark_master,
        "SPARK_DRIVER_MEMORY": settings.spark_driver_memory,
        "SPARK_SHUFFLE_PARTITIONS": str(settings.spark_shuffle_partitions),
    }
    if settings.drop_landed:
        variables["TRACE_DROP_LANDED"] = "1"
    if settings.spark_thrift_host:
        variables["SPARK_THRIFT_HOST"] = settings.spark_thrift_host
    if settings.spark_thrift_port:
        variables["SPARK_THRIFT_PORT"] = str(settings.spark_thrift_port)
    if settings.mirror_dir is not None:
        variables["TRACE_MIRROR_DIR"] = str(settings.mirror_dir)
    if settings.spark_log_level:
        variables["SPARK_LOG_LEVEL"] = settings.spark_log_level
    return variables


def child_environment(settings: Settings, **extra: str) -> dict[str, str]:
    """The environment for a child process (dbt, ``dagster dev``): this process's, with the settings'
    variables (and ``extra``) in place of whatever it carried."""
    return {**os.environ, **settings_variables(settings), **extra}


@contextmanager
def exported(settings: Settings) -> Iterator[None]:
    """The settings' variables in this process's environment while the block runs, then as before.

    Only for dagster-dbt: ``DbtCliResource.cli`` starts dbt with a copy of ``os.environ`` and takes no
    environment of its own (and reads profiles.yml in-process). Everything else gets the settings passed.
    """
    variables = settings_variables(settings)
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
