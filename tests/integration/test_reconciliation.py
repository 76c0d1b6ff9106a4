"""analysis.reconciliation on the shared fixture build: real BurstGPT_1 head rows and cluster_summary.csv,
synthetic (or mixed) rows for everything else. Every published number is listed once; only numbers computed
from real rows get pass/mismatch; the rest say the rows are synthetic."""

import csv

import pytest

from pipelines.settings import PROJECT_ROOT, Settings
from tests.support.dbt_runs import Warehouse

SEED = PROJECT_ROOT / "dbt_project" / "seeds" / "analysis" / "published_numbers.csv"
COLUMNS = "published_source, measure, scope, subject, computed_value, data_origin, verdict, reason"


@pytest.fixture(scope="module")
def reconciliation(fixture_warehouse: Settings) -> list[dict]:
    got = Warehouse(fixture_warehouse.duckdb_path).execute(f"select {COLUMNS} from analysis.reconciliation")
    return [dict(zip([c.strip() for c in COLUMNS.split(",")], row, strict=True)) for row in got]


def test_every_published_number_is_listed_once(reconciliation: list[dict]) -> None:
    seed = sorted((r["measure"], r["scope"], r["subject"]) for r in csv.DictReader(SEED.open()))
    listed = sorted(
        (r["measure"], r["scope"], r["subject"])
        for r in reconciliation
        if r["published_source"] == "published_numbers"
    )
    assert listed == seed and len(seed) == 49
    summary = {r["scope"] for r in reconciliation if r["measure"] == "summary_jobs"}
    assert {"seren", "kalos", "philly", "helios", "pai"} <= summary


def test_numbers_from_real_rows_are_compared(reconciliation: list[dict]) -> None:
    """The fixture's BurstGPT_1 rows are the file's real first 400: compared, and of course not the file."""
    real = [r for r in reconciliation if r["data_origin"] == "real"]
    assert real and all(r["scope"] == "BurstGPT_1.csv" for r in real)
    assert all(r["verdict"] in ("pass", "mismatch") and r["computed_value"] is not None for r in real)
    by_key = {(r["measure"], r["subject"]): r for r in real}
    assert (by_key[("rows", "")]["computed_value"], by_key[("rows", "")]["verdict"]) == (400.0, "mismatch")
    assert by_key[("failed_requests", "")]["computed_value"] == 17.0
    assert by_key[("not_failed_requests", "")]["reason"].startswith("differs by 1403911.0")


def test_nothing_on_synthetic_rows_is_a_result(reconciliation: list[dict]) -> None:
    not_real = [r for r in reconciliation if r["data_origin"] in ("synthetic", "mixed")]
    assert {r["scope"] for r in not_real} >= {"seren", "kalos", "BurstGPT_3.csv", "philly"}
    for r in not_real:
        assert r["verdict"] == "not_comparable", r
        assert (
            r["reason"].startswith("the rows are synthetic (") and "not a real-data result" in r["reason"]
        ), r
    seren_summary = next(r for r in reconciliation if (r["measure"], r["scope"]) == ("summary_jobs", "seren"))
    assert seren_summary["data_origin"] == "mixed" and seren_summary["verdict"] == "not_comparable"


def test_unloaded_scopes_are_not_computable(reconciliation: list[dict]) -> None:
    burst_2 = [r for r in reconciliation if r["scope"] == "BurstGPT_2.csv"]
    assert burst_2 and all(
        (r["computed_value"], r["data_origin"], r["verdict"]) == (None, "none", "not_comparable")
        and r["reason"] == "not computable: no rows of this scope are loaded"
        for r in burst_2
    )
    assert not any(r["verdict"] == "pass" and r["data_origin"] != "real" for r in reconciliation)
