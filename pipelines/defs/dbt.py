"""dbt assets: every dbt model and seed an asset, every dbt data test an asset check, plus the dbt docs.

Groups follow the model folders (staging, intermediate, marts, analysis) through ``meta.dagster.group`` in
``dbt_project/dbt_project.yml``, so the default translator suffices; dbt source ``raw.<family>`` is asset key
``raw/<family>``, the raw assets' own keys, so lineage joins without a custom translator.

``dbt build`` runs as a subprocess while this process holds the warehouse writer lock (and the Dagster pool
``duckdb_writer`` keeps other writers out), with the settings' variables in its environment (the ``dbt``
resource, :class:`SettingsDbtCliResource`; this process's environment is left alone). The manifest comes
from ``dbt parse`` run by ``python -m pipelines.warehouse.dbt_build`` (the Makefile's install step) — never by
running dbt at import. What to build and what to hold is :mod:`pipelines.warehouse.dbt_build`'s.

Engines (``TRACE_ENGINE``): ``duckdb``; ``spark`` — dbt target ``spark`` (local PySpark session: its Derby
metastore admits one process, so the build holds the writer lock like DuckDB) or, when
``SPARK_THRIFT_HOST`` is set, ``spark_thrift`` (a Thrift server: builds run in the Dagster pool
``spark_thrift`` without the writer lock, so parallel runs share the one server). Both targets use the
target path ``target/spark``. After a Spark build the Spark tables become DuckDB views in ``trace.duckdb``
(``pipelines/warehouse/spark_views.py``), so ``trace-warehouse sql`` shows what Spark built.
"""

import hashlib
import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cached_property
from importlib.metadata import version
from pathlib import Path

import dagster as dg
import dagster_dbt.core.resource as dagster_dbt_resource
from dagster_dbt import DbtCliInvocation, DbtCliResource, DbtProject, dbt_assets
from packaging.version import Version
from pydantic import Field

from pipelines.defs.keys import DBT, DOCS_KEY, REPORT_GROUP, SETTINGS, settings_of
from pipelines.defs.rebuild import FULL_REBUILD_TAG, dbt_skip_reason, skip_message
from pipelines.docs_server import docs_link
from pipelines.settings import Settings, settings_variables, with_settings
from pipelines.warehouse import dbt_build as build
from pipelines.warehouse.db import writer

WRITER_POOL = "duckdb_writer"
SPARK_THRIFT_POOL = "spark_thrift"  # raise its limit in dagster.yaml to build in parallel on the server
DOCS_FILES = ("index.html", "static_index.html", "manifest.json", "catalog.json")
DOCS_FINGERPRINT = ".fingerprint"  # beside the docs: docs_fingerprint of what they were generated from
DOCS_INPUTS = frozenset({"dbt_project.yml", "profiles.yml", "models", "macros", "seeds", "tests"})
DOCS_UNCHANGED = "the project and the warehouse's columns are as when the docs were generated"
BUILT_PROJECT = "built_project.sha256"  # beside a build's manifest: project_digest of the project it built


class DbtManifestMissingError(RuntimeError):
    """The dbt manifest has not been produced yet (``make install`` produces it)."""


def dbt_project(settings: Settings, engine: str | None = None) -> DbtProject:
    """The dbt project for ``engine`` (default: the settings'): one target path per engine."""
    engine = engine or settings.engine
    return DbtProject(
        project_dir=build.DBT_PROJECT_DIR,
        target_path=build.target_path(engine),
        target=build.dbt_target(settings, engine),
    )


class InstalledDbtCliResource(DbtCliResource):
    """dagster-dbt's resource, for the dbt installed beside this interpreter (``build.local_dbt``) or another.

    dagster-dbt learns dbt's version by running ``dbt --version`` before every command, and that asks PyPI for
    the latest releases of dbt-core and each adapter: seconds per command, and network traffic from a
    warehouse build. The installed package's metadata says the same without either."""

    @cached_property
    def _cli_version(self) -> Version:
        if Path(self.dbt_executable) == build.local_dbt():
            return Version(version("dbt-core"))
        # another installation (or dbt from PATH): ask it, as dagster-dbt does
        answer = subprocess.check_output([self.dbt_executable, "--version"], text=True)
        found = re.search(r"(\d+\.\d+\.\d+)", answer)
        if found is None:
            raise ValueError(f"{self.dbt_executable} --version printed no version: {answer.strip()[:200]}")
        return Version(found.group(1))


# dagster-dbt (0.29) has no public way to give dbt an environment: ``DbtCliResource.cli`` builds the child's
# from ``os.environ`` and takes none of its own (its maintainers point to ``dagster._utils.env.environ``, which
# writes ``os.environ``). The least private seam is the classmethod ``cli`` starts dbt with,
# ``DbtCliInvocation.run(env=...)``: while a SettingsDbtCliResource's ``cli`` runs, dagster-dbt's module sees
# this subclass, which puts the variables of that call (a context variable: this thread's call only) into the
# child's environment. The in-process adapter dagster-dbt also makes reads this process's environment; it only
# serves column metadata and row counts, which these assets do not fetch.
_DBT_VARIABLES: ContextVar[Mapping[str, str] | None] = ContextVar("dbt_variables", default=None)
_SEAM_LOCK = threading.Lock()


class _SettingsDbtCliInvocation(DbtCliInvocation):
    @classmethod
    def run(cls, *, env: dict[str, str], **kwargs) -> DbtCliInvocation:  # type: ignore[override]
        variables = _DBT_VARIABLES.get()
        return super().run(env=env if variables is None else with_settings(env, variables), **kwargs)


@contextmanager
def _dbt_variables(variables: Mapping[str, str]) -> Iterator[None]:
    token = _DBT_VARIABLES.set(variables)
    try:
        with _SEAM_LOCK:
            assert dagster_dbt_resource.DbtCliInvocation is DbtCliInvocation, "dagster-dbt's seam moved"
            dagster_dbt_resource.DbtCliInvocation = _SettingsDbtCliInvocation  # type: ignore[misc]
            try:
                yield
            finally:
                dagster_dbt_resource.DbtCliInvocation = DbtCliInvocation  # type: ignore[misc]
    finally:
        _DBT_VARIABLES.reset(token)


class SettingsDbtCliResource(InstalledDbtCliResource):
    """The ``dbt`` resource: dbt runs with ``variables`` — the settings' (``settings_variables``) — in place of
    the ones it would inherit, so profiles.yml and the models read the run's settings."""

    variables: dict[str, str] = Field(
        default_factory=dict, description="the settings' variables dbt's profile and models read"
    )

    def cli(  # type: ignore[override]
        self, args: Sequence[str], *, partition_keys: Iterable[str] | None = None, **kwargs
    ) -> DbtCliInvocation:
        """``dbt <args>``; ``partition_keys``: the partitions a build replaces (None: every one)."""
        with _dbt_variables({**self.variables, **build.partition_keys_environment(partition_keys)}):
            return super().cli(args, **kwargs)


def dbt_resource(settings: Settings, engine: str | None = None) -> DbtCliResource:
    """The ``dbt`` resource the dbt assets use (resource key ``dbt``): dbt starts with the settings'
    variables in its environment."""
    return SettingsDbtCliResource(
        project_dir=dbt_project(settings, engine),
        dbt_executable=build.dbt_executable(),
        variables=settings_variables(settings),
    )


def target_dir(project: DbtProject) -> Path:
    """The checkout's target folder: the manifest ``make install`` parsed, which the definitions load."""
    return project.project_dir / project.target_path


def run_target_dir(settings: Settings, project: DbtProject) -> Path:
    """Where this warehouse's dbt invocations write (``run_results.json``, compiled SQL, partial parse): under
    the warehouse (``Settings.dbt_runs_dir``). It does not start from the checkout's partial parse: dbt would
    not reuse it, as its profile names another DuckDB file and a build's ``--vars`` name its partitions."""
    path = settings.dbt_runs_dir / Path(project.target_path).name
    path.mkdir(parents=True, exist_ok=True)
    return path


def manifest_path(settings: Settings, engine: str | None = None) -> Path:
    """The parsed manifest for ``engine``; a clear error when ``make install`` has not produced it."""
    path = dbt_project(settings, engine).manifest_path
    if not path.exists():
        raise DbtManifestMissingError(
            f"dbt manifest not found at {path}: run `make install` "
            "(it runs `python -m pipelines.warehouse.dbt_build`, i.e. `dbt parse`) and reload the definitions"
        )
    return path


def _pool(project: DbtProject) -> str:
    return SPARK_THRIFT_POOL if project.target == build.SPARK_THRIFT_TARGET else WRITER_POOL


def dbt_models_assets(settings: Settings, engine: str | None = None) -> dg.AssetsDefinition:
    """Every dbt model and seed as an asset, every dbt data test as an asset check, run by ``dbt build``."""
    project = dbt_project(settings, engine)
    target = project.target or "duckdb"

    @dbt_assets(
        manifest=manifest_path(settings, engine),
        project=project,
        name="dbt_build",
        pool=_pool(project),
        required_resource_keys={SETTINGS, DBT},
    )
    def _dbt_build(context: dg.AssetExecutionContext):
        settings, dbt = settings_of(context), context.resources.dbt
        with build.build_lock(settings, target):
            waiting = build.pending_partitions(settings)
            full = context.run.tags.get(FULL_REBUILD_TAG) == "full"
            keys = None if full else sorted(set().union(*waiting.values()))
            runs = run_target_dir(settings, project)
            skip = dbt_skip_reason(context.run.tags, waiting, (runs / "run_results.json").exists())
            if skip:
                context.log.info(skip_message("dbt", skip))
                return
            if keys is None:
                context.log.info("full rebuild: every partition of the incremental facts")
            else:
                changed = ", ".join(keys) or "none"
                context.log.info(f"incremental facts replace only the changed partitions: {changed}")
            stamp = runs / BUILT_PROJECT
            stamp.unlink(missing_ok=True)
            parsed = project_digest(project)
            invocation = dbt.cli(build.BUILD_COMMAND, partition_keys=keys, context=context, target_path=runs)
            try:
                yield from invocation.stream()
                built = {key.path[-1] for key in context.selected_asset_keys}
                build.consume_partitions(settings, waiting, built)
                stamp.write_text(parsed)
            finally:
                published = build.after_build(settings, target, project.manifest_path)
                if published:
                    context.log.info(f"trace.duckdb: {len(published)} view(s) over the Spark tables")

    return _dbt_build


def dbt_docs_asset(
    models: dg.AssetsDefinition, settings: Settings, engine: str | None = None
) -> dg.AssetsDefinition:
    """``dbt docs generate`` after the models: the site lands in ``$WAREHOUSE_DIR/docs/dbt/``."""
    project = dbt_project(settings, engine)

    @dg.asset(
        key=DOCS_KEY,
        deps=list(models.keys),
        group_name=REPORT_GROUP,
        kinds={"dbt"},
        pool=_pool(project),
        required_resource_keys={SETTINGS, DBT},
        description=(
            "dbt docs for the warehouse (`dbt docs generate --static`): the `docs` link while "
            "`trace-warehouse docs` serves them (`make dev` starts it), or open "
            "`$WAREHOUSE_DIR/docs/dbt/static_index.html` in a browser (one self-contained file)."
        ),
    )
    def _dbt_docs(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        settings, dbt = settings_of(context), context.resources.dbt
        out = settings.docs_dir / "dbt"
        metadata = {
            "docs": dg.MetadataValue.url(docs_link(settings, out / "index.html")),
            "path": dg.MetadataValue.path(str(out)),
            "engine": project.target or "duckdb",
        }
        stamp = out / DOCS_FINGERPRINT
        with build.build_lock(settings, project.target or "duckdb"):
            digest = project_digest(project)
            fingerprint = docs_fingerprint(settings, project, digest)
            current = all((out / name).is_file() for name in DOCS_FILES) and stamp.is_file()
            if fingerprint and current and stamp.read_text() == fingerprint:
                context.log.info(skip_message("docs", DOCS_UNCHANGED))
                return dg.MaterializeResult(metadata={**metadata, "regenerated": False})
            work = settings.warehouse_dir / ".tmp" / "dbt-docs"
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            reuse = reuse_last_build(run_target_dir(settings, project), work, digest)
            dbt.cli(["docs", "generate", "--static", *reuse], target_path=work).wait()
        out.mkdir(parents=True, exist_ok=True)
        stamp.unlink(missing_ok=True)
        for name in DOCS_FILES:
            shutil.copyfile(work / name, out / name)
        shutil.rmtree(work, ignore_errors=True)
        if fingerprint:
            stamp.write_text(fingerprint)
        context.log.info(f"dbt docs written to {out}")
        return dg.MaterializeResult(metadata={**metadata, "regenerated": True})

    return _dbt_docs


def reuse_last_build(runs: Path, work: Path, digest: str) -> list[str]:
    """Start the dbt target folder ``work`` from the last dbt invocation in ``runs``; returns the arguments of
    ``dbt docs generate`` that reuse it. Its parse is reused (a build's partitions are no part of it). When
    it was a build of the project as it stands now (``digest``: its ``project_digest``) and it compiled every
    node, its manifest is the docs' and dbt only reads the catalog (``--no-compile``): the docs' compiled SQL
    is the SQL that the build ran. Otherwise dbt compiles the project again, as a full build."""
    parsed = runs / "partial_parse.msgpack"
    if parsed.exists():
        shutil.copyfile(parsed, work / parsed.name)
    if not _built_as_it_stands(runs, digest):
        return []
    shutil.copyfile(runs / "manifest.json", work / "manifest.json")
    return ["--no-compile"]


def _built_as_it_stands(runs: Path, digest: str) -> bool:
    """Whether ``runs/manifest.json`` is a build's of the project whose ``project_digest`` is ``digest``, with
    every node compiled."""
    try:
        built = (runs / BUILT_PROJECT).read_text(encoding="utf-8")
        nodes = json.loads((runs / "manifest.json").read_text(encoding="utf-8"))["nodes"]
    except (OSError, ValueError, KeyError):
        return False
    compiled = all(
        node.get("compiled_code") is not None for node in nodes.values() if node["resource_type"] != "seed"
    )
    return compiled and built == digest


def project_digest(project: DbtProject) -> str:
    """The project's files that dbt reads (``DOCS_INPUTS``) and dbt's version, hashed."""
    digest = hashlib.sha256(version("dbt-core").encode())
    root = project.project_dir
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and relative.parts[0] in DOCS_INPUTS:
            digest.update(f"{relative.as_posix()}\0".encode() + path.read_bytes())
    return digest.hexdigest()


def docs_fingerprint(settings: Settings, project: DbtProject, digest: str) -> str | None:
    """What ``dbt docs generate`` reads, hashed: the project's files, dbt's version, and every column of
    ``trace.duckdb`` (the catalog); None on Spark, whose catalog is not read here (its docs are always
    generated); ``digest`` is the project's ``project_digest``. New rows alone leave it as it was, so a refresh
    that only added data reuses the docs."""
    if (project.target or "duckdb") != "duckdb" or not settings.duckdb_path.is_file():
        return None
    hashed = hashlib.sha256(digest.encode())
    with writer(settings) as con:
        columns = con.execute(
            "select table_schema, table_name, column_name, data_type, ordinal_position "
            "from information_schema.columns order by all"
        ).fetchall()
    hashed.update(repr(columns).encode())
    return hashed.hexdigest()


def dbt_assets_defs(settings: Settings, engine: str | None = None) -> list[dg.AssetsDefinition]:
    """The dbt models (one multi-asset) and the dbt docs asset, for ``Definitions(assets=...)``."""
    models = dbt_models_assets(settings, engine)
    return [models, dbt_docs_asset(models, settings, engine)]
