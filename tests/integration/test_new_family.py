"""Adding a file family touches the registry, its suite (and, for dbt, its staging model) only: a throwaway
family goes registry → landing (mirror) → load → validation → ``raw.*`` and ``quarantine.*`` views, with
no other module edited — the only changes here are one more entry in ``registry.FAMILIES`` and its suite in
``expectations.SUITES``."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import expectations
from expectations.rules import Rule, Suite, between, table_columns
from pipelines.families import registry
from pipelines.families.schemas import Column, FileSchema
from pipelines.families.upstream import UpstreamFile
from pipelines.sample.source import trace_source
from pipelines.settings import load_settings
from pipelines.sources.landing import land_files
from pipelines.validate.validation import validate_family
from pipelines.warehouse.db import writer
from pipelines.warehouse.raw_load import load_family
from pipelines.warehouse.views import refresh_views

KEY = "acme__toy_jobs"
SCHEMA = FileSchema(
    (Column("id", "BIGINT", required=True), Column("user", "VARCHAR"), Column("gpus", "BIGINT"))
)
SUITE = Suite(
    family=KEY,
    columns=table_columns([(c.raw_name, c.type) for c in SCHEMA.columns]),
    rules=(
        Rule(
            "gpus_not_negative",
            "quarantine",
            "A job asks for 0 or more GPUs.",
            between("gpus", 0),
            columns=("gpus",),
        ),
    ),
)
TOY = registry.Family(
    "acme", "toy_jobs", "jobs", "none", "A throwaway family for this test.", SCHEMA,
    (UpstreamFile(KEY, "github_raw", "data/toy/toy_jobs.csv"),),
)  # fmt: skip
CSV = "id,user,gpus\n1,ann,8\n2,bob,-1\nthree,cy,2\n4,dee,0\n"


def test_a_new_family_needs_only_its_registry_entry_and_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "FAMILIES", (*registry.FAMILIES, TOY))
    monkeypatch.setattr(expectations, "SUITES", (*expectations.SUITES, SUITE))
    mirror = tmp_path / "mirror"
    (mirror / TOY.files[0].mirror_path).parent.mkdir(parents=True)
    (mirror / TOY.files[0].mirror_path).write_text(CSV)
    settings = load_settings(
        {"WAREHOUSE_DIR": str(tmp_path / "wh"), "TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(mirror)}
    )

    landed = land_files(settings, registry.files_for([KEY]), source=trace_source(settings))
    assert landed.ok and [f.family for f in landed.landed] == [KEY]
    loaded = load_family(settings, KEY)
    assert not loaded.errors
    (result,) = loaded.results
    assert (result.state.lines, result.state.loaded, result.state.rejected) == (4, 3, 1)  # "three" is no id
    validation = validate_family(settings, KEY, publish_docs=False)
    assert validation.findings() == {"gpus_not_negative": 1}
    assert (validation.loaded, validation.passed, validation.quarantined) == (3, 2, 1)

    with writer(settings) as con:
        refresh_views(con, settings, [KEY])
    with duckdb.connect(str(settings.duckdb_path), read_only=True) as con:
        assert con.sql(f"select id, user, gpus from raw.{KEY} order by id").fetchall() == [
            (1, "ann", 8), (2, "bob", -1), (4, "dee", 0),
        ]  # fmt: skip
        assert con.sql(f"select _row_number, rule from quarantine.{KEY}").fetchall() == [
            (3, "gpus_not_negative")
        ]
        reject = con.sql(
            "select line, column_name from raw.load_rejects where family = ?", params=[KEY]
        ).fetchall()
        assert reject == [(4, "id")]
