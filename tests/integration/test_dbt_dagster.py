"""The dbt project through Dagster: every model and seed materialized, every dbt test an asset check result,
the settings reaching dbt through the dbt resource (this process's environment untouched), and the dbt docs
written under $WAREHOUSE_DIR/docs/dbt/ (generated again only when the project or the warehouse's columns
changed, from the build's manifest while the project is the one it built)."""

import json
import os
from dataclasses import replace
from datetime import date
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from pipelines.defs.dbt import BUILT_PROJECT, dbt_assets_defs, dbt_project, dbt_resource, run_target_dir
from pipelines.defs.keys import DOCS_KEY
from pipelines.defs.resources import resource_defs
from pipelines.settings import Settings, load_settings
from pipelines.warehouse.db import writer
from pipelines.warehouse.dbt_build import prepare
from tests.support.dbt_runs import load_fixture_rows

pytestmark = pytest.mark.slow


def test_dbt_runs_with_the_settings_and_leaves_this_environment_alone(tmp_path: Path) -> None:
    """dbt started by the ``dbt`` resource reads the run's settings (profiles.yml: the DuckDB file under
    WAREHOUSE_DIR, capped at TRACE_DUCKDB_MEMORY_LIMIT) though they are in no environment of this process,
    which is the same after the run as before it."""
    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path / "wh"), "TRACE_DUCKDB_MEMORY_LIMIT": "1GiB"})
    assert "WAREHOUSE_DIR" not in os.environ and "TRACE_DUCKDB_MEMORY_LIMIT" not in os.environ
    before = dict(os.environ)
    settings.warehouse_dir.mkdir(parents=True)
    query = "select current_setting('memory_limit') as memory_limit"
    invocation = dbt_resource(settings, "duckdb").cli(
        ["show", "--inline", query, "--output", "json"],
        target_path=run_target_dir(settings, dbt_project(settings, "duckdb")),
    )
    lines = [event.raw_event["info"]["msg"] for event in invocation.stream_raw_events()]
    assert dict(os.environ) == before
    assert invocation.is_successful()
    (shown,) = [json.loads(line) for line in lines if '"show"' in line]
    assert shown == {"show": [{"memory_limit": "1.0 GiB"}]}  # DuckDB's words for 1GiB; the default is 768MB
    assert settings.duckdb_path.is_file()  # the database dbt opened: $WAREHOUSE_DIR/trace.duckdb


def test_dbt_assets_materialize_with_checks(warehouse: Settings, tmp_path: Path) -> None:
    # BURSTGPT_START_DATE is the run's setting only, in no environment of this process: the dbt resource
    # gives it to dbt (the first request's local date below)
    settings = replace(warehouse, burstgpt_start_date=date(2023, 1, 1))
    before = dict(os.environ)
    load_fixture_rows(settings, tmp_path / "files")
    prepare(
        settings, "duckdb"
    )  # the Makefile's install step; here so the manifest matches the project under test

    models, docs = dbt_assets_defs(settings, "duckdb")
    with dg.instance_for_test() as instance:
        result = dg.materialize([models, docs], resources=resource_defs(settings), instance=instance)
    assert result.success

    materialized = {e.asset_key for e in result.get_asset_materialization_events()}
    assert materialized == set(models.keys) | {DOCS_KEY}
    groups = {models.group_names_by_key[k] for k in models.keys}
    assert groups == {"staging", "intermediate", "marts", "analysis"}
    assert dg.AssetKey(["marts", "fct_job"]) in materialized

    evaluations = result.get_asset_check_evaluations()
    assert {e.asset_check_key for e in evaluations} == set(models.check_keys)
    failed = {(e.check_name, e.severity) for e in evaluations if not e.passed}
    # the synthetic Kalos RUNNING job is an undocumented state: kept, and its accepted_values test warns
    assert failed == {
        (
            "accepted_values_stg_acme__kalos_jobs_job_state__COMPLETED__CANCELLED__FAILED__TIMEOUT__NODE_FAIL",
            dg.AssetCheckSeverity.WARN,
        )
    }
    fct_job_checks = {e.check_name for e in evaluations if e.asset_key == dg.AssetKey(["marts", "fct_job"])}
    assert any(name.startswith("relationships_fct_job_job_state_key") for name in fct_job_checks)

    assert (settings.docs_dir / "dbt" / "static_index.html").stat().st_size > 0
    catalog = settings.docs_dir / "dbt" / "catalog.json"
    # the catalog (dbt_project/macros/platform/catalog.sql) has every relation the project builds or reads,
    # each with trace.duckdb's columns
    manifest = json.loads((settings.docs_dir / "dbt" / "manifest.json").read_text())
    # the docs' manifest is the build's, which compiled every node: dbt docs generate compiled nothing again
    runs = run_target_dir(settings, dbt_project(settings, "duckdb"))
    build_id = json.loads((runs / "run_results.json").read_text())["metadata"]["invocation_id"]
    assert manifest["metadata"]["invocation_id"] == build_id
    relations = {
        uid
        for uid, node in manifest["nodes"].items()
        if node["resource_type"] in ("model", "seed") and node["config"]["materialized"] != "ephemeral"
    }
    described = json.loads(catalog.read_text())
    assert set(described["nodes"]) == relations and set(described["sources"]) == set(manifest["sources"])
    fct_job = described["nodes"]["model.trace_warehouse.fct_job"]["columns"]
    with writer(settings) as con:
        columns = con.execute(
            "select column_name from duckdb_columns() where table_name = 'fct_job'"
        ).fetchall()
    assert sorted(fct_job) == sorted(c for (c,) in columns)
    generated = catalog.stat().st_mtime_ns

    def docs_again() -> bool:
        with dg.instance_for_test() as instance:
            again = dg.materialize([models, docs], selection=[DOCS_KEY], resources=resource_defs(settings),
                                   instance=instance)  # fmt: skip
        (event,) = again.get_asset_materialization_events()
        return event.materialization.metadata["regenerated"].value

    assert docs_again() is False and catalog.stat().st_mtime_ns == generated  # nothing changed: reused
    with writer(settings) as con:  # a new column in the warehouse: the catalog would differ
        con.execute("create view marts.docs_probe as select 1 as probe")
    (runs / BUILT_PROJECT).write_text("another project")  # as if the project had changed since the build
    assert docs_again() is True and catalog.stat().st_mtime_ns != generated
    compiled = json.loads((settings.docs_dir / "dbt" / "manifest.json").read_text())
    assert compiled["metadata"]["invocation_id"] != build_id  # dbt compiled the project for the docs
    assert all(n.get("compiled_code") for n in compiled["nodes"].values() if n["resource_type"] == "model")

    con = duckdb.connect(str(settings.duckdb_path), read_only=True)
    try:
        first = con.execute(
            "select request_time_utc, request_local_date_key from marts.fct_request "
            "where file_number = 1 and _row_number = 2"
        ).fetchall()
    finally:
        con.close()
    assert [(str(t), d) for t, d in first] == [("2022-12-31 16:00:05", 20230101)]
    assert dict(os.environ) == before
