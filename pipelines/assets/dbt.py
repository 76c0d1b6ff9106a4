"""dbt assets: every dbt model and seed an asset, every dbt data test an asset check, plus the dbt docs.

Groups follow the model folders (staging, intermediate, marts, analysis) through ``meta.dagster.group`` in
``dbt_project/dbt_project.yml``, so the default translator suffices; dbt source ``raw.<family>`` is asset key
``raw/<family>``, the raw assets' own keys, so lineage joins without a custom translator.

``dbt build`` runs as a subprocess while this process holds the warehouse writer lock (and the Dagster pool
``duckdb_writer`` keeps other writers out), with ``WAREHOUSE_DIR`` (absolute) and ``BURSTGPT_START_DATE``
from the settings in its environment. The manifest comes from ``dbt parse`` run by
``python -m pipelines.assets.dbt_prepare`` (the Makefile's install step) — never by running dbt at import.
"""

import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
from dagster_dbt import DbtCliResource, DbtProject, dbt_assets

from pipelines.settings import PROJECT_ROOT, Settings, load_settings
from pipelines.warehouse_db import writer_lock

DBT_PROJECT_DIR = PROJECT_ROOT / "dbt_project"
WRITER_POOL = "duckdb_writer"
DOCS_KEY = dg.AssetKey(["docs", "dbt"])
DOCS_GROUP = "reports"
DOCS_FILES = ("index.html", "static_index.html", "manifest.json", "catalog.json")


class DbtManifestMissingError(RuntimeError):
    """The dbt manifest has not been produced yet (``make install`` produces it)."""


def dbt_project(engine: str | None = None) -> DbtProject:
    """The dbt project for ``engine`` (default: ``TRACE_ENGINE``): one target path per engine."""
    engine = engine or load_settings().engine
    return DbtProject(project_dir=DBT_PROJECT_DIR, target_path=Path("target") / engine, target=engine)


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
    return env


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

    @dbt_assets(manifest=manifest_path(engine), project=project, name="dbt_build", pool=WRITER_POOL)
    def _dbt_build(context: dg.AssetExecutionContext, dbt: DbtCliResource):
        settings = load_settings()
        with writer_lock(settings, wait_message="waiting for the warehouse writer lock before dbt build"):
            with dbt_environment(settings):
                invocation = dbt.cli(["build"], context=context, target_path=target_dir(project))
            yield from invocation.stream()

    return _dbt_build


def dbt_docs_asset(models: dg.AssetsDefinition, engine: str | None = None) -> dg.AssetsDefinition:
    """``dbt docs generate`` after the models: the site lands in ``$WAREHOUSE_DIR/docs/dbt/``."""
    project = dbt_project(engine)

    @dg.asset(
        key=DOCS_KEY,
        deps=list(models.keys),
        group_name=DOCS_GROUP,
        kinds={"dbt"},
        pool=WRITER_POOL,
        description=(
            "dbt docs for the warehouse (`dbt docs generate --static`): open "
            "`$WAREHOUSE_DIR/docs/dbt/static_index.html` in a browser (one self-contained file), or serve "
            "the folder and open index.html."
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
        with writer_lock(settings):
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
                "docs": dg.MetadataValue.url((out / "static_index.html").as_uri()),
                "path": dg.MetadataValue.path(str(out)),
                "engine": project.target or "duckdb",
            }
        )

    return _dbt_docs


def dbt_assets_defs(engine: str | None = None) -> list[dg.AssetsDefinition]:
    """The dbt models (one multi-asset) and the dbt docs asset, for ``Definitions(assets=...)``."""
    models = dbt_models_assets(engine)
    return [models, dbt_docs_asset(models, engine)]
