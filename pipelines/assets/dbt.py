"""dbt assets: every dbt model and seed an asset, every dbt data test an asset check, plus the dbt docs.

Groups follow the model folders (staging, intermediate, marts, analysis) through ``meta.dagster.group`` in
``dbt_project/dbt_project.yml``, so the default translator suffices; dbt source ``raw.<family>`` is asset key
``raw/<family>``, the raw assets' own keys, so lineage joins without a custom translator.

``dbt build`` runs as a subprocess while this process holds the warehouse writer lock (and the Dagster pool
``duckdb_writer`` keeps other writers out), with ``WAREHOUSE_DIR`` (absolute) and ``BURSTGPT_START_DATE``
from the settings in its environment. The manifest comes from ``dbt parse`` run by
``python -m pipelines.assets.dbt_prepare`` (the Makefile's install step) — never by running dbt at import.

Incremental refresh: the raw partitions that changed since the last build (``pipelines/refresh/pending.py``)
go to dbt as var ``partition_keys``, so the incremental facts replace only those partitions (every other
model is rebuilt whole); after a successful build the keys of every family whose facts were built are
consumed. Nothing pending: a plain ``dbt build``, everything rebuilt.

Engines (``TRACE_ENGINE``): ``duckdb``; ``spark`` — dbt target ``spark`` (local PySpark session: its Derby
metastore admits one process, so the build holds the writer lock like DuckDB) or, when
``SPARK_THRIFT_HOST`` is set, ``spark_thrift`` (a Thrift server: builds run in the Dagster pool
``spark_thrift`` without the writer lock, so parallel runs share the one server). Both targets use the
target path ``target/spark``. After a Spark build the Spark tables become DuckDB views in ``trace.duckdb``
(``pipelines/spark/tables.py``), so ``trace-warehouse sql`` shows what Spark built.
"""

import json
import os
import shutil
import sys
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

import dagster as dg
from dagster_dbt import DbtCliResource, DbtProject, dbt_assets

from pipelines.docs_server import docs_link
from pipelines.settings import PROJECT_ROOT, Settings, load_settings
from pipelines.warehouse_db import writer, writer_lock

DBT_PROJECT_DIR = PROJECT_ROOT / "dbt_project"
WRITER_POOL = "duckdb_writer"
SPARK_THRIFT_POOL = "spark_thrift"  # raise its limit in dagster.yaml to build in parallel on the server
SPARK_THRIFT_TARGET = "spark_thrift"
DOCS_KEY = dg.AssetKey(["docs", "dbt"])
DOCS_GROUP = "reports"
DOCS_FILES = ("index.html", "static_index.html", "manifest.json", "catalog.json")


class DbtManifestMissingError(RuntimeError):
    """The dbt manifest has not been produced yet (``make install`` produces it)."""


def dbt_target(engine: str | None = None, settings: Settings | None = None) -> str:
    """The profiles.yml output for ``engine``: ``duckdb``, ``spark`` (session) or ``spark_thrift``."""
    settings = settings or load_settings()
    engine = engine or settings.engine
    return SPARK_THRIFT_TARGET if engine == "spark" and settings.spark_thrift_host else engine


def dbt_project(engine: str | None = None) -> DbtProject:
    """The dbt project for ``engine`` (default: ``TRACE_ENGINE``): one target path per engine."""
    settings = load_settings()
    engine = engine or settings.engine
    return DbtProject(
        project_dir=DBT_PROJECT_DIR, target_path=Path("target") / engine, target=dbt_target(engine, settings)
    )


def dbt_executable() -> str:
    """The ``dbt`` beside this interpreter (a venv's bin/ may not be on PATH), else ``dbt`` from PATH."""
    local = Path(sys.executable).with_name("dbt")
    return str(local) if local.exists() else "dbt"


def dbt_resource(engine: str | None = None) -> DbtCliResource:
    """The ``dbt`` resource the dbt assets use (resource key ``dbt``)."""
    return DbtCliResource(project_dir=dbt_project(engine), dbt_executable=dbt_executable())


def target_dir(project: DbtProject) -> Path:
    return project.project_dir / project.target_path


def dbt_env(settings: Settings) -> dict[str, str]:
    """What dbt must see: the warehouse (absolute), the engine and BurstGPT's day 0 (or nothing)."""
    env = {"WAREHOUSE_DIR": str(settings.warehouse_dir), "TRACE_ENGINE": settings.engine}
    env["BURSTGPT_START_DATE"] = (
        settings.burstgpt_start_date.isoformat() if settings.burstgpt_start_date else ""
    )
    if settings.spark_thrift_host:
        env["SPARK_THRIFT_HOST"] = settings.spark_thrift_host
    if settings.spark_thrift_port:
        env["SPARK_THRIFT_PORT"] = str(settings.spark_thrift_port)
    return env


# A partition key no lake partition has: "replace nothing" for the incremental facts (an empty list would
# mean "no window", i.e. rebuild everything).
NO_PARTITIONS = "__none__"
# Run tag that makes the dbt asset rebuild every partition instead of only the changed ones.
FULL_REBUILD_TAG = "trace-warehouse/dbt"


# dbt's unit tests check the SQL against fixed inputs: they belong to development and CI (`make test` runs
# them with `dbt test --select test_type:unit`), not to every build of the data (dbt's own advice; they
# were 2.4 s of a 5.7 s build on the tiny input).
BUILD_COMMAND = ["build", "--exclude-resource-type", "unit_test"]


def dbt_build_args(partition_keys: Iterable[str] | None = None) -> list[str]:
    """``dbt build`` arguments: with ``partition_keys`` the incremental facts replace only those partitions
    (none of them for ``[NO_PARTITIONS]``); without, everything is rebuilt. Unit tests are left out."""
    args = list(BUILD_COMMAND)
    if partition_keys is not None:
        args += ["--vars", json.dumps({"partition_keys": sorted(set(partition_keys)) or [NO_PARTITIONS]})]
    return args


def pending_partitions(settings: Settings) -> dict[str, set[str]]:
    """Raw partitions changed since dbt last built the facts that read them (pipelines/refresh/pending.py)."""
    from pipelines.refresh.pending import pending

    with writer_lock(settings):
        return pending(settings)


def consume_partitions(settings: Settings, waiting: dict[str, set[str]], built_models: Iterable[str]) -> None:
    """After a successful build: forget the pending keys of families whose every fact was built."""
    from pipelines.refresh.pending import consumable, consume

    with writer_lock(settings):
        consume(settings, consumable(waiting, built_models))


def build_lock(settings: Settings, target: str) -> AbstractContextManager[None]:
    """What a dbt build holds: the writer lock, except on a Spark Thrift server (it serializes itself and
    leaves trace.duckdb alone until :func:`after_build` publishes the views, under the lock)."""
    if target == SPARK_THRIFT_TARGET:
        return nullcontext()
    return writer_lock(settings, wait_message="waiting for the warehouse writer lock before dbt build")


def after_build(settings: Settings, project: DbtProject) -> list[str]:
    """Make ``trace.duckdb`` show this build: views over a Spark build's tables, and ``meta.dbt_engine``."""
    from pipelines.spark.tables import publish_duckdb_views, record_engine

    with writer(settings) as con:
        if (project.target or "duckdb") == "duckdb":
            record_engine(con, "duckdb", settings.duckdb_path)
            return []
        manifest = json.loads(project.manifest_path.read_text()) if project.manifest_path.exists() else None
        return publish_duckdb_views(con, settings, manifest)


@contextmanager
def dbt_environment(settings: Settings) -> Iterator[None]:
    """Put ``dbt_env(settings)`` in ``os.environ`` while a dbt subprocess is started, then restore it.

    ``DbtCliResource.cli`` copies ``os.environ`` when it starts dbt and takes no environment of its own.
    """
    saved = {name: os.environ.get(name) for name in dbt_env(settings)}
    os.environ.update(dbt_env(settings))
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def manifest_path(engine: str | None = None) -> Path:
    """The parsed manifest for ``engine``; a clear error when ``make install`` has not produced it."""
    path = dbt_project(engine).manifest_path
    if not path.exists():
        raise DbtManifestMissingError(
            f"dbt manifest not found at {path}: run `make install` "
            "(it runs `python -m pipelines.assets.dbt_prepare`, i.e. `dbt parse`) and reload the definitions"
        )
    return path


def dbt_models_assets(engine: str | None = None) -> dg.AssetsDefinition:
    """Every dbt model and seed as an asset, every dbt data test as an asset check, run by ``dbt build``."""
    project = dbt_project(engine)

    pool = SPARK_THRIFT_POOL if project.target == SPARK_THRIFT_TARGET else WRITER_POOL

    @dbt_assets(manifest=manifest_path(engine), project=project, name="dbt_build", pool=pool)
    def _dbt_build(context: dg.AssetExecutionContext, dbt: DbtCliResource):
        settings = load_settings()
        with build_lock(settings, project.target or "duckdb"):
            waiting = pending_partitions(settings)
            full = context.run.tags.get(FULL_REBUILD_TAG) == "full"
            keys = None if full else sorted(set().union(*waiting.values()))
            if keys is None:
                context.log.info("full rebuild: every partition of the incremental facts")
            else:
                changed = ", ".join(keys) or "none"
                context.log.info(f"incremental facts replace only the changed partitions: {changed}")
            with dbt_environment(settings):
                invocation = dbt.cli(dbt_build_args(keys), context=context, target_path=target_dir(project))
            try:
                yield from invocation.stream()
                built = {key.path[-1] for key in context.selected_asset_keys}
                consume_partitions(settings, waiting, built)
            finally:
                published = after_build(settings, project)
                if published:
                    context.log.info(f"trace.duckdb: {len(published)} view(s) over the Spark tables")

    return _dbt_build


def dbt_docs_asset(models: dg.AssetsDefinition, engine: str | None = None) -> dg.AssetsDefinition:
    """``dbt docs generate`` after the models: the site lands in ``$WAREHOUSE_DIR/docs/dbt/``."""
    project = dbt_project(engine)

    @dg.asset(
        key=DOCS_KEY,
        deps=list(models.keys),
        group_name=DOCS_GROUP,
        kinds={"dbt"},
        pool=SPARK_THRIFT_POOL if project.target == SPARK_THRIFT_TARGET else WRITER_POOL,
        description=(
            "dbt docs for the warehouse (`dbt docs generate --static`): the `docs` link while "
            "`trace-warehouse docs` serves them (`make dev` starts it), or open "
            "`$WAREHOUSE_DIR/docs/dbt/static_index.html` in a browser (one self-contained file)."
        ),
    )
    def _dbt_docs(context: dg.AssetExecutionContext, dbt: DbtCliResource) -> dg.MaterializeResult:
        settings = load_settings()
        out = settings.docs_dir / "dbt"
        work = settings.warehouse_dir / ".tmp" / "dbt-docs"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        parsed = target_dir(project) / "partial_parse.msgpack"
        if parsed.exists():  # reuse the parse of dbt_prepare / dbt build
            shutil.copyfile(parsed, work / parsed.name)
        with build_lock(settings, project.target or "duckdb"):
            with dbt_environment(settings):
                invocation = dbt.cli(["docs", "generate", "--static"], target_path=work)
            invocation.wait()
        out.mkdir(parents=True, exist_ok=True)
        for name in DOCS_FILES:
            shutil.copyfile(work / name, out / name)
        shutil.rmtree(work, ignore_errors=True)
        context.log.info(f"dbt docs written to {out}")
        return dg.MaterializeResult(
            metadata={
                "docs": dg.MetadataValue.url(docs_link(settings, out / "index.html")),
                "path": dg.MetadataValue.path(str(out)),
                "engine": project.target or "duckdb",
            }
        )

    return _dbt_docs


def dbt_assets_defs(engine: str | None = None) -> list[dg.AssetsDefinition]:
    """The dbt models (one multi-asset) and the dbt docs asset, for ``Definitions(assets=...)``."""
    models = dbt_models_assets(engine)
    return [models, dbt_docs_asset(models, engine)]
