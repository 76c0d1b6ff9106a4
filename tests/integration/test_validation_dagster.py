"""The suites as Dagster asset checks: one check per rule on each raw asset, WARN for findings, ERROR and
blocking for a structural failure, quarantine views refreshed, Data Docs linked. Raw assets are stood in
for by assets with the same keys that load small files with the real loader (the real raw assets need a
landing manifest, which is another layer's business)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from expectations import suite_for
from pipelines.defs.checks import family_asset_checks as asset_checks
from pipelines.defs.data_docs import data_docs_asset
from pipelines.defs.keys import GX_DOCS_KEY, raw_key
from pipelines.defs.resources import resource_defs
from pipelines.families.registry import FAMILIES
from pipelines.settings import Settings, load_settings
from pipelines.validate.summary import format_check_summary
from tests.conftest import REAL_DIR
from tests.support.validation import (
    BURST_HEADER,
    REAL_FILES,
    SEREN_HEADER,
    load_csv,
    load_path,
    seren_line,
    upstream,
    validate,
    view_quarantine,
)


def stand_in(family: str, load: Callable[[Settings], object] | None = None) -> dg.AssetsDefinition:
    @dg.asset(key=raw_key(family))
    def _raw() -> None:
        if load is not None:
            load(load_settings())

    return _raw


def checks_for(*families: str) -> list[dg.AssetChecksDefinition]:
    keys = {raw_key(f) for f in families}
    return [c for c in asset_checks() if {k.asset_key for k in c.check_keys} <= keys]


def evaluations(result: dg.ExecuteInProcessResult) -> dict[tuple[str, str], dg.AssetCheckEvaluation]:
    return {(e.asset_key.path[-1], e.check_name): e for e in result.get_asset_check_evaluations()}


def test_every_rule_is_a_check_on_its_raw_asset() -> None:
    defs = asset_checks()
    assert len(defs) == len(FAMILIES)
    by_asset = {}
    for d in defs:
        for key in d.check_keys:
            by_asset.setdefault(key.asset_key, set()).add(key.name)
    for fam in FAMILIES:
        assert by_asset[raw_key(fam.key)] == {r.name for r in suite_for(fam.key).all_rules}
    specs = {(s.asset_key, s.name): s for d in defs for s in d.check_specs}
    assert specs[(raw_key("acme__seren_jobs"), "columns_and_types")].blocking
    assert not specs[(raw_key("acme__seren_jobs"), "gpu_time_is_duration_times_gpu_num")].blocking
    twins = specs[(raw_key("burstgpt__requests_without_fails"), "without_fails_is_full_minus_failures")]
    assert {d.asset_key for d in twins.additional_deps} == {raw_key("burstgpt__requests")}
    summary = specs[(raw_key("acme__cluster_summary"), "summary_job_counts_match_job_files")]
    assert raw_key("acme__seren_jobs") in {d.asset_key for d in summary.additional_deps}


def test_real_rows_through_dagster(warehouse: Settings) -> None:
    real = {upstream(name).family: name for name in REAL_FILES}

    def loader(name: str) -> Callable[[Settings], object]:
        return lambda settings: load_path(settings, name, REAL_DIR / REAL_FILES[name], origin="real")

    raws = [stand_in(f.key, loader(real[f.key]) if f.key in real else None) for f in FAMILIES]
    assets = [*raws, data_docs_asset(), *asset_checks()]
    result = dg.materialize(assets, resources=resource_defs(warehouse))
    assert result.success
    evals = evaluations(result)
    assert len(evals) == sum(len(suite_for(f.key).all_rules) for f in FAMILIES)
    failed = {k: (e.severity, e.metadata["count"].value) for k, e in evals.items() if not e.passed}
    assert failed == {
        ("burstgpt__requests", "request_not_failed"): (dg.AssetCheckSeverity.WARN, 17),
        ("acme__kalos_jobs", "duration_is_end_minus_start"): (dg.AssetCheckSeverity.WARN, 2),
        ("acme__cluster_summary", "summary_job_counts_match_job_files"): (dg.AssetCheckSeverity.WARN, 2),
    }
    kalos = evals[("acme__kalos_jobs", "duration_is_end_minus_start")].metadata
    assert "| end_minus_submit | 2 |" in kalos["breakdown"].value
    assert kalos["rate"].value == 1.0 and kalos["threshold"].value == 0.0
    assert "| github/InternLM/AcmeTrace/data/job_trace/trace_kalos.csv | 2 |" in kalos["sample_rows"].value
    assert (kalos["loaded"].value, kalos["passed"].value, kalos["quarantined"].value) == (2, 2, 0)
    assert "| 2023-05 | 2 | 2 | 0 |" in kalos["reconciliation"].value
    assert kalos["data_docs_index"].value == f"{warehouse.docs_url}/docs/gx/index.html"  # the docs server
    assert kalos["data_docs"].value.startswith(f"{warehouse.docs_url}/docs/gx/validations/acme__kalos_jobs/")
    docs = warehouse.docs_dir / "gx" / "index.html"
    assert docs.exists()  # rendered once, by docs/gx after every family's checks
    (docs_event,) = [m for m in result.get_asset_materialization_events() if m.asset_key == GX_DOCS_KEY]
    rendered = docs_event.materialization.metadata["pages_rendered"].value
    assert rendered >= 2 * len(FAMILIES)  # every family's suite and result pages, in one render
    index = docs.read_text(encoding="utf-8")
    assert "acme__kalos_jobs.rows" in index and "burstgpt__requests.rows" in index  # families side by side
    with duckdb.connect(str(warehouse.duckdb_path), read_only=True) as con:
        views = {
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables where table_schema = 'quarantine'"
            ).fetchall()
        }
    assert views == {f.key for f in FAMILIES}
    summary = format_check_summary(result.get_asset_check_evaluations())
    assert "request_not_failed" in summary and summary.endswith("3 failed, 3 with findings")


def test_quarantine_through_dagster(warehouse: Settings, tmp_path: Path) -> None:
    def load(settings: Settings) -> None:
        text = f"{BURST_HEADER}\n5,ChatGPT,1,2,3,API log\n6,ChatGPT,1,2,4,API log\n"
        load_csv(settings, tmp_path, "BurstGPT_1.csv", text)

    family = "burstgpt__requests"
    result = dg.materialize([stand_in(family, load), *checks_for(family)], resources=resource_defs(warehouse))
    check = evaluations(result)[(family, "total_is_request_plus_response")]
    assert not check.passed and check.severity == dg.AssetCheckSeverity.WARN
    assert check.metadata["count"].value == 1 and check.metadata["quarantined"].value == 1
    assert "| 0000 | 2 | 1 | 1 |" in check.metadata["reconciliation"].value
    assert [(r["_row_number"], r["rule"]) for r in view_quarantine(warehouse, family)] == [
        (3, "total_is_request_plus_response")
    ]
    assert (check.metadata["units_validated"].value, check.metadata["units_reused"].value) == (1, 0)

    again = dg.materialize([stand_in(family), *checks_for(family)], resources=resource_defs(warehouse))
    reused = evaluations(again)[(family, "total_is_request_plus_response")]  # nothing changed: stored result
    assert (reused.metadata["units_validated"].value, reused.metadata["units_reused"].value) == (0, 1)
    assert not reused.passed and reused.metadata["count"].value == 1
    assert reused.metadata["data_docs"].value == check.metadata["data_docs"].value  # the page stands


def _break_seren_parquet(settings: Settings, select: str) -> None:
    (part,) = (settings.raw_dir / "acme__seren_jobs").glob("_partition=*/*.parquet")
    duckdb.sql(f"copy (select {select} from read_parquet('{part}')) to '{part}.new' (format parquet)")
    Path(f"{part}.new").replace(part)


@pytest.mark.parametrize(
    ("select", "details"),
    [
        ("* replace (cast(gpu_time as varchar) as gpu_time)", "found_type=VARCHAR expected_type=DOUBLE"),
        ("* exclude (queue)", "found_type=(absent) expected_type=DOUBLE"),
    ],
)
def test_structural_failure_blocks(warehouse: Settings, tmp_path: Path, select: str, details: str) -> None:
    family = "acme__seren_jobs"

    def load(settings: Settings) -> None:
        load_csv(settings, tmp_path, "trace_seren.csv", f"{SEREN_HEADER}\n{seren_line(1, cpu_num=-1)}\n")
        _break_seren_parquet(settings, select)

    @dg.asset(deps=[raw_key(family)])
    def downstream() -> int:
        return 1

    result = dg.materialize(
        [stand_in(family, load), downstream, *checks_for(family)],
        raise_on_error=False,
        resources=resource_defs(warehouse),
    )
    evals = evaluations(result)
    structural = evals[(family, "columns_and_types")]
    assert not structural.passed and structural.severity == dg.AssetCheckSeverity.ERROR
    assert structural.metadata["count"].value == 1
    assert details in structural.metadata["sample_rows"].value
    blocked = evals[(family, "counts_not_negative")]
    assert not blocked.passed and blocked.description == "not evaluated: the structural rule failed"
    materialized = {e.asset_key for e in result.get_asset_materialization_events()}
    assert materialized == {raw_key(family)}  # downstream was blocked
    assert view_quarantine(warehouse, family) == []  # nothing quarantined from a table it cannot read


def test_validation_without_dagster_matches(warehouse: Settings, tmp_path: Path) -> None:
    load_csv(warehouse, tmp_path, "trace_seren.csv", f"{SEREN_HEADER}\n{seren_line(1)}\n")
    _break_seren_parquet(warehouse, "* exclude (queue)")
    result = validate(warehouse, "acme__seren_jobs")
    assert result.findings() == {"columns_and_types": 1} and not result.structural_passed
    assert result.partitions == []
