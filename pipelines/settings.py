"""The one place that reads the warehouse's settings, and the only module that reads the process
environment.

Every setting comes from an environment variable. ``SETTINGS_TABLE`` declares each one once: its variable,
the :class:`Settings` field it fills, its type (how the text is parsed, and what a bad value's error says),
its default, its help text and the CLI flag that overrides it. :func:`load_settings` is driven by it, the
docs site's configuration page is generated from it (docs/hooks.py), and so is dbt's
``dbt_project/profiles.yml`` (:mod:`pipelines.warehouse.profiles`), whose ``env_var`` defaults are the
table's. The CLI's flags override the same variables (:func:`load_settings` ``overrides``), so the CLI, the
Dagster UI and the tests resolve them identically. The resolved :class:`Settings` is then *passed* — to
library functions as an argument, to Dagster assets through the ``settings`` resource — never read again.
Child processes that read the variables themselves (dbt's profile and models, ``dagster dev``) get them in
their own environment (:func:`child_environment`); this process's environment is never written.
Relative paths resolve against the project root, never against the current directory.

Only the standard library is imported here: docs/hooks.py loads this file by path.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal, get_args

Source = Literal["sample", "mirror", "remote"]
Engine = Literal["duckdb", "spark"]
PercentileMode = Literal["auto", "exact", "binned"]

SOURCES: tuple[Source, ...] = get_args(Source)
ENGINES: tuple[Engine, ...] = get_args(Engine)
PERCENTILE_MODES: tuple[PercentileMode, ...] = get_args(PercentileMode)

PROJECT_ROOT = Path(__file__).resolve().parent.parent

SAMPLE_MIRROR = "sample-mirror"  # the sample source's mirror, under $WAREHOUSE_DIR
DAGSTER_DIR = ".dagster"  # the default Dagster instance, under $WAREHOUSE_DIR
HF_DEFAULT_ENDPOINT = "https://huggingface.co"  # huggingface_hub's own default, when HF_ENDPOINT is unset


class SettingsError(ValueError):
    """A setting has a value the warehouse cannot use; the message names the variable."""


# Types: how a variable's text becomes a setting's value, and back (for child processes and dbt's profile).
# ``parse`` gets the text stripped and non-empty; it returns None for "unset" (the default applies).


class Text:
    kind = "text"  # the docs' type column

    def parse(self, name: str, raw: str) -> Any:
        return raw

    def text(self, value: Any) -> str:
        return str(value)

    def default(self, value: Any) -> Any:
        """The table's default as a value of this type."""
        return value


class Url(Text):
    kind = "URL"

    def parse(self, name: str, raw: str) -> Any:
        return raw.rstrip("/") or None  # without the trailing slash


class PathType(Text):
    kind = "path"

    def parse(self, name: str, raw: str) -> Any:
        return _resolve(raw)

    def default(self, value: Any) -> Any:
        return None if value is None else _resolve(value)  # the table's defaults are relative to the root


class Integer(Text):
    kind = "integer"

    def parse(self, name: str, raw: str) -> Any:
        try:
            return int(raw) or None  # 0: the default
        except ValueError:
            raise SettingsError(f"{name}={raw!r} is not an integer") from None


class IsoDate(Text):
    kind = "date `YYYY-MM-DD`"

    def parse(self, name: str, raw: str) -> Any:
        try:
            return date.fromisoformat(raw)
        except ValueError:
            raise SettingsError(f"{name}={raw!r} is not a YYYY-MM-DD date") from None

    def text(self, value: Any) -> str:
        return value.isoformat()


class Choice(Text):
    def __init__(self, values: tuple[str, ...]) -> None:
        self.values = values
        self.kind = " · ".join(f"`{v}`" for v in values)

    def parse(self, name: str, raw: str) -> Any:
        if raw not in self.values:
            raise SettingsError(f"{name}={raw!r} is not one of {', '.join(self.values)}")
        return raw


class Flag(Choice):
    """``0`` or ``1``, as a bool."""

    def __init__(self) -> None:
        super().__init__(("0", "1"))

    def parse(self, name: str, raw: str) -> Any:
        return super().parse(name, raw) == "1"

    def text(self, value: Any) -> str:
        return "1" if value else "0"


@dataclass(frozen=True)
class Setting:
    """One setting: the environment variable it is read from and everything said about it, once."""

    name: str  # the environment variable
    field: str  # the Settings field it fills
    type: Text
    meaning: str  # the help text (Markdown): the docs' configuration page
    # when unset or empty: a value (a path: relative to the project root), None (unset), or a function of the
    # settings resolved before it (by field name)
    default: Any | Callable[[Mapping[str, Any]], Any] = None
    shown: str = ""  # the docs' default, where it says something other than the value
    flag: str = ""  # the CLI flag (or make variable) that overrides it, if any
    secret: bool = False  # never in a log, a repr, or a resource's config (children inherit it unchanged)

    @property
    def default_text(self) -> str:
        """The default as the variable would say it (dbt's profile falls back to it)."""
        if self.default is None or callable(self.default):
            raise ValueError(f"{self.name} has no default value: its default is {self.docs_default}")
        return self.type.text(self.default)

    @property
    def docs_default(self) -> str:
        if self.shown:
            return self.shown
        return "unset" if self.default is None else f"`{self.default_text}`"

    @property
    def cli_help(self) -> str:
        """What a CLI flag's help says of the variable it overrides: ``$NAME, default <its default>``."""
        unset = self.default is None or callable(self.default)
        return f"${self.name}" if unset else f"${self.name}, default {self.default_text}"

    def resolve(self, env: Mapping[str, str], resolved: Mapping[str, Any]) -> Any:
        raw = env.get(self.name, "").strip()
        value = self.type.parse(self.name, raw) if raw else None
        if value is not None:
            return value
        return self.default(resolved) if callable(self.default) else self.type.default(self.default)


def _sample_mirror(s: Mapping[str, Any]) -> Path | None:
    return s["warehouse_dir"] / SAMPLE_MIRROR if s["source"] == "sample" else None


# Every variable the settings are read from, in the order they resolve (a derived default reads the settings
# above it). The docs site's configuration page is generated from it (docs/hooks.py), dbt's profile too
# (pipelines/warehouse/profiles.py); tests clear these variables so a developer's shell cannot leak in.
SETTINGS_TABLE: tuple[Setting, ...] = (
    Setting("WAREHOUSE_DIR", "warehouse_dir", PathType(), "everything the pipeline writes", "warehouse",
            shown="`./warehouse`"),
    Setting("TRACE_SOURCE", "source", Choice(SOURCES), "where the files come from", "sample",
            flag="`run --source`"),
    Setting("TRACE_MIRROR_DIR", "mirror_dir", PathType(), "mirror root (required for `mirror`)", _sample_mirror,
            shown=f"`$WAREHOUSE_DIR/{SAMPLE_MIRROR}` for `sample`", flag="`run --mirror`"),
    Setting("TRACE_ENGINE", "engine", Choice(ENGINES), "the dbt target the models build on", "duckdb",
            flag="`run --engine`"),
    Setting("TRACE_GITHUB_RAW_URL", "github_raw_url", Url(), "GitHub raw endpoint",
            "https://raw.githubusercontent.com"),
    Setting("TRACE_GITHUB_URL", "github_url", Url(), "GitHub releases endpoint", "https://github.com"),
    Setting("HF_ENDPOINT", "hf_endpoint", Url(), "HuggingFace endpoint",
            shown=f"huggingface_hub's default (`{HF_DEFAULT_ENDPOINT}`)"),
    Setting("HF_TOKEN", "hf_token", Text(), "HuggingFace token (never logged)", secret=True),
    Setting("BURSTGPT_START_DATE", "burstgpt_start_date", IsoDate(),
            "calendar date of BurstGPT day 0, which upstream does not publish; unset, the marts and figures say "
            "“day N” and relative weekdays"),
    Setting("DAGSTER_HOME", "dagster_home", PathType(), "the one Dagster instance (CLI, UI, tests)",
            lambda s: s["warehouse_dir"] / DAGSTER_DIR, shown=f"`$WAREHOUSE_DIR/{DAGSTER_DIR}`"),
    Setting("DAGSTER_PORT", "dagster_port", Integer(), "UI port, bound to 127.0.0.1", 3000,
            flag="`dev --port`, `make dev PORT=`"),
    Setting("TRACE_DOCS_PORT", "docs_port", Integer(),
            "port of the docs server (`trace-warehouse docs`, started by `make dev`), bound to 127.0.0.1", 3001,
            flag="`docs --port`"),
    Setting("TRACE_DOCS_URL", "docs_base_url", Url(),
            "where the UI's docs and report links point (e.g. behind a proxy)",
            shown="`http://127.0.0.1:$TRACE_DOCS_PORT`"),
    Setting("TRACE_DROP_LANDED", "drop_landed", Flag(),
            "`1`: delete a landed CSV once its Parquet is published (halves the disk a full load needs). Its "
            "landing-manifest document keeps size, sha256, ETag/mtime and says `dropped`, so an unchanged "
            "upstream file is not fetched again and its load is skipped; a changed one lands and loads, then "
            "is dropped again. A lost lake file whose landed copy was dropped is a load error naming the "
            "file (delete its `manifest/<path>.json` to land it again)", False),
    Setting("TRACE_DUCKDB_MEMORY_LIMIT", "duckdb_memory_limit", Text(),
            "DuckDB's memory cap in dbt builds and exports; bigger sorts and joins spill to `trace.duckdb.tmp/`. "
            "Exact percentiles cannot spill: `utilization_percentiles` over a week of GPU_UTIL at 293 nodes "
            "needs `8GB` with `TRACE_UTILIZATION_PERCENTILES=exact`", "768MB"),
    Setting("TRACE_UTILIZATION_PERCENTILES", "utilization_percentiles", Choice(PERCENTILE_MODES),
            "`exact`: `utilization_percentiles` interpolates over every value (memory grows with the data); "
            "`binned`: its percentiles are read off `analysis.utilization_cdf` — the upper edge of the bin "
            "holding the exact percentile, `percentile_error` = the bin's width, bounded memory at any scale; "
            "`auto`: exact up to 20 M utilization samples, binned beyond. The `percentile_method` column "
            "says which", "auto"),
    Setting("SPARK_THRIFT_HOST", "spark_thrift_host", Text(), "host of a Spark Thrift server for the `spark` engine",
            shown="unset → local session"),
    Setting("SPARK_THRIFT_PORT", "spark_thrift_port", Integer(), "port of that Thrift server",
            ),
    Setting("SPARK_THRIFT_USER", "spark_thrift_user", Text(), "the user dbt's Thrift sessions connect as",
            "trace"),
    Setting("SPARK_MASTER", "spark_master", Text(), "Spark master (local session and the Thrift launcher)",
            "local[*]"),
    Setting("SPARK_DRIVER_MEMORY", "spark_driver_memory", Text(), "Spark driver memory", "2g"),
    Setting("SPARK_SHUFFLE_PARTITIONS", "spark_shuffle_partitions", Integer(), "`spark.sql.shuffle.partitions`",
            2),
    Setting("SPARK_LOG_LEVEL", "spark_log_level", Text(), "Spark's log level",
            shown="unset (each launcher's own)"),
)  # fmt: skip
SETTINGS_VARS: tuple[str, ...] = tuple(s.name for s in SETTINGS_TABLE)
SETTINGS_BY_VAR: dict[str, Setting] = {s.name: s for s in SETTINGS_TABLE}


@dataclass(frozen=True)
class Settings:
    """The resolved settings (:func:`load_settings`; each field's variable, type and default are in
    ``SETTINGS_TABLE``), and the paths under ``$WAREHOUSE_DIR`` derived from them."""

    warehouse_dir: Path
    source: Source
    mirror_dir: Path | None  # None only for the remote source
    engine: Engine
    github_raw_url: str
    github_url: str
    hf_endpoint: str | None  # None: huggingface_hub's default (hf_url)
    hf_token: str | None = field(repr=False)
    burstgpt_start_date: date | None
    dagster_home: Path
    dagster_port: int
    docs_port: int
    docs_base_url: str | None  # None: http://127.0.0.1:<docs_port> (docs_url)
    drop_landed: bool
    duckdb_memory_limit: str  # DuckDB's cap in dbt builds (profiles.yml) and exports
    utilization_percentiles: PercentileMode
    spark_thrift_host: str | None
    spark_thrift_port: int | None
    spark_thrift_user: str
    spark_master: str
    spark_driver_memory: str
    spark_shuffle_partitions: int
    spark_log_level: str | None  # None: each Spark launcher's own default

    @property
    def hf_url(self) -> str:
        """The HuggingFace endpoint URLs are built on: the setting, or huggingface_hub's default."""
        return self.hf_endpoint or HF_DEFAULT_ENDPOINT

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
        return self.warehouse_dir / SAMPLE_MIRROR

    @property
    def lock_path(self) -> Path:
        """OS file lock held by every process that writes the warehouse."""
        return self.warehouse_dir / ".writer.lock"


def _resolve(path: str) -> Path:
    p = Path(path).expanduser()
    return (p if p.is_absolute() else PROJECT_ROOT / p).resolve()


def load_settings(
    env: Mapping[str, str] | None = None, *, overrides: Mapping[str, str | None] | None = None
) -> Settings:
    """Resolve the settings from ``env`` (default: the process environment); ``overrides`` (the CLI's
    flags, by variable name; ``None`` values are ignored) win over it."""
    env = dict(os.environ if env is None else env)
    env.update({k: v for k, v in (overrides or {}).items() if v is not None})
    resolved: dict[str, Any] = {}
    for setting in SETTINGS_TABLE:
        resolved[setting.field] = setting.resolve(env, resolved)
    if resolved["source"] == "mirror" and resolved["mirror_dir"] is None:
        raise SettingsError("TRACE_SOURCE=mirror needs TRACE_MIRROR_DIR (or `run --mirror DIR`)")
    return Settings(**resolved)


def settings_variables(settings: Settings) -> dict[str, str]:
    """The settings as the variables child processes read — dbt's profile and models (warehouse, engine,
    BurstGPT day 0, DuckDB and Spark tuning), ``dagster dev`` (all of them): each set setting's value as
    text. Unset settings and secrets are left out."""
    variables = {}
    for setting in SETTINGS_TABLE:
        value = getattr(settings, setting.field)
        if value is not None and not setting.secret:
            variables[setting.name] = setting.type.text(value)
    return variables


def with_settings(env: Mapping[str, str], variables: Mapping[str, str]) -> dict[str, str]:
    """``env`` with the settings' ``variables`` (:func:`settings_variables`) in place of whatever it carried:
    a setting they leave unset is dropped from it too, so the child resolves it as unset. Secrets are kept
    as they are."""
    kept = {k: v for k, v in env.items() if k not in SETTINGS_BY_VAR or SETTINGS_BY_VAR[k].secret}
    return {**kept, **variables}


def child_environment(settings: Settings, **extra: str) -> dict[str, str]:
    """The environment for a child process (dbt, ``dagster dev``): this process's, with the settings'
    variables (and ``extra``) in place of whatever it carried."""
    return {**with_settings(os.environ, settings_variables(settings)), **extra}
