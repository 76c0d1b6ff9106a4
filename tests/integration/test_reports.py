"""Report assets on a small warehouse: the real rows shipped in the repository plus synthetic rows (as the dbt
tests build it), then every figure asset and report/report materialized through Dagster.

Asserted: each PNG is on disk and valid, inline on its asset (a markdown data-URI image, the same bytes),
with the rows it plotted and the real/synthetic rows behind it; report.md states the real and synthetic
rows per dataset (400 real BurstGPT_1 requests), carries the synthetic banner and links every figure; a
warehouse whose job and utilization marts are empty (or missing) draws "no data" figures instead of failing.
"""

import base64
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import dagster as dg
import duckdb
import pandas as pd
import pytest

from pipelines.defs.keys import REPORT_GROUP, SETTINGS, report_key
from pipelines.defs.reports import REPORT_FILE, report_assets
from pipelines.report import figures
from pipelines.report.catalog import FIGURES
from pipelines.report.queries import GPU_UTILIZATION, ORIGIN_SOURCES, fetch
from pipelines.settings import PROJECT_ROOT, Settings, load_settings

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JOB_FIGURES = {"job_state_shares", "job_type_shares", "job_duration_cdf", "gpu_num_cdf"}
NOTEBOOK_JOB_FIGURES = {
    "job_duration_cdf_by_type", "job_state_shares_by_type", "cluster_occupancy_hourly", "user_gpu_hours",
    "gpu_num_by_type",
}  # fmt: skip
REQUEST_FIGURES = {"requests_per_hour", "requests_per_weekday", "token_distribution", "tokens_per_hour"}
UTILIZATION_FIGURES = {"gpu_utilization_cdf", "utilization_cdf"}


@dataclass
class Materialized:
    settings: Settings
    metadata: dict[dg.AssetKey, dict[str, object]]


def materialize_reports(settings: Settings) -> Materialized:
    """Materialize every report asset (the analysis marts already built) with the settings' warehouse."""
    with dg.instance_for_test() as instance:
        result = dg.materialize(report_assets(), instance=instance, resources={SETTINGS: settings})
    assert result.success
    metadata = {
        e.asset_key: {k: v.value for k, v in e.materialization.metadata.items()}
        for e in result.get_asset_materialization_events()
    }
    return Materialized(settings, metadata)


@pytest.fixture(scope="module")
def built(fixture_warehouse: Settings) -> Settings:
    """The shared build of the fixture rows (tests/integration/conftest.py)."""
    return fixture_warehouse


@pytest.fixture(scope="module")
def reports(built: Settings) -> Materialized:
    return materialize_reports(built)


def _empty(con: duckdb.DuckDBPyConnection, relation: str) -> None:
    """No rows left in a table, or in a view (a model whose rows DuckDB keeps in the lake): an empty table."""
    schema, name = relation.split(".")
    (kind,) = con.execute(
        "select table_type from information_schema.tables where table_schema = ? and table_name = ?",
        [schema, name],
    ).fetchone()
    if kind == "VIEW":
        con.execute(f"create table {relation}__empty as select * from {relation} limit 0")
        con.execute(f"drop view {relation}")
        con.execute(f"alter table {relation}__empty rename to {name}")
    else:
        con.execute(f"delete from {relation}")


@pytest.fixture(scope="module")
def empty_jobs(built: Settings, tmp_path_factory: pytest.TempPathFactory) -> Materialized:
    """The built warehouse as if only BurstGPT had been loaded: job and utilization marts empty, and one
    analysis mart never built at all."""
    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path_factory.mktemp("burstgpt-only") / "warehouse")})
    settings.warehouse_dir.mkdir(parents=True)
    shutil.copyfile(built.duckdb_path, settings.duckdb_path)
    con = duckdb.connect(str(settings.duckdb_path))
    try:
        for table in (
            "marts.fct_job", "marts.fct_node_metric", "marts.fct_server_power", "analysis.job_state_shares",
            "analysis.job_type_shares", "analysis.job_duration_cdf", "analysis.job_duration_percentiles",
            "analysis.utilization_percentiles", "analysis.utilization_histogram", "analysis.utilization_cdf",
            "analysis.utilization_hourly", "analysis.cluster_job_counts",
            *(f"analysis.{name}" for name in NOTEBOOK_JOB_FIGURES),
        ):  # fmt: skip
            _empty(con, table)
        con.execute("drop table analysis.gpu_num_cdf")
    finally:
        con.close()
    return materialize_reports(settings)


@pytest.fixture(scope="module")
def without_samples(built: Settings, tmp_path_factory: pytest.TempPathFactory) -> Materialized:
    """The built warehouse with the fact of samples and the views under it gone: what the report reads
    instead are the marts that counted the samples once."""
    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path_factory.mktemp("no-samples") / "warehouse")})
    settings.warehouse_dir.mkdir(parents=True)
    shutil.copyfile(built.duckdb_path, settings.duckdb_path)
    con = duckdb.connect(str(settings.duckdb_path))
    try:
        for view in (
            "marts.fct_node_metric", "intermediate.int_node_metrics_keyed", "staging.stg_acme__gpu_metrics",
            "staging.stg_acme__node_metrics", "raw.acme__gpu_metrics", "raw.acme__node_metrics",
        ):  # fmt: skip
            con.execute(f"drop view {view} cascade")
    finally:
        con.close()
    return materialize_reports(settings)


def assert_png(data: bytes) -> None:
    assert data[:8] == PNG_MAGIC
    assert len(data) > 1024


def inline_png(markdown: str) -> bytes:
    match = re.fullmatch(r"!\[[^\]]+\]\(data:image/png;base64,([A-Za-z0-9+/=]+)\)", markdown)
    assert match, markdown[:120]
    return base64.b64decode(match.group(1))


def test_assets_are_in_group_reports_after_the_marts_they_read() -> None:
    assets = {key: a for a in report_assets() for key in a.keys}
    assert set(assets) == {report_key(s.name) for s in FIGURES} | {report_key("report")}
    for key, asset in assets.items():
        assert asset.group_names_by_key[key] == REPORT_GROUP
    for spec in FIGURES:
        deps = set(assets[report_key(spec.name)].asset_deps[report_key(spec.name)])
        assert {dg.AssetKey(["analysis", m]) for m in spec.marts} <= deps
        assert dg.AssetKey(ORIGIN_SOURCES[spec.fact][0].split(".")) in deps
    report_deps = set(assets[report_key("report")].asset_deps[report_key("report")])
    assert {report_key(s.name) for s in FIGURES} <= report_deps
    assert dg.AssetKey(["analysis", "request_file_summary"]) in report_deps


def test_loading_the_assets_imports_no_matplotlib() -> None:
    code = "import sys, pipelines.defs.reports as r; r.report_assets(); print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr[-2000:]


@pytest.mark.slow
def test_every_figure_is_written_and_inline_on_its_asset(reports: Materialized) -> None:
    for spec in FIGURES:
        meta = reports.metadata[report_key(spec.name)]
        path = reports.settings.report_dir / f"{spec.name}.png"
        data = path.read_bytes()
        assert_png(data)
        assert inline_png(str(meta["figure"])) == data
        assert meta["path"] == str(path)
        assert int(meta["rows_plotted"]) > 0, spec.name  # type: ignore[call-overload]
        assert sum(meta[f"rows_by_{spec.series}"].values()) == meta["rows_plotted"]  # type: ignore[attr-defined]


@pytest.mark.slow
def test_figures_state_the_origin_of_their_rows(reports: Materialized) -> None:
    by_name = {s.name: reports.metadata[report_key(s.name)] for s in FIGURES}
    for name in REQUEST_FIGURES:  # 400 real BurstGPT_1 lines, 2 synthetic BurstGPT_3 lines
        assert (by_name[name]["source_rows_real"], by_name[name]["source_rows_synthetic"]) == (400, 2)
    # GPU jobs: 2 real Seren + 2 real Kalos README rows, 8 synthetic
    for name in JOB_FIGURES | NOTEBOOK_JOB_FIGURES:
        assert (by_name[name]["source_rows_real"], by_name[name]["source_rows_synthetic"]) == (4, 8)
    assert by_name["requests_per_hour"]["rows_by_file_number"] == {"1": 11, "3": 1}
    assert by_name["gpu_utilization_cdf"]["rows_by_cluster_name"] == {"kalos": 2, "seren": 4}
    assert (
        by_name["gpu_utilization_cdf"]["source_rows_real"],
        by_name["gpu_utilization_cdf"]["source_rows_synthetic"],
    ) == (0, 6)


@pytest.mark.slow
def test_gpu_utilization_cdf_counts_the_samples(built: Settings) -> None:
    """The CDF on 0.5 % bins (x = a bin's upper edge): seren's GPU_UTIL samples 0, 51, 98, 99 (one cell
    quarantined, one repeat dropped)."""
    data = fetch(built, {"cdf": GPU_UTILIZATION})["cdf"]
    seren = data[(data["cluster_name"] == "seren") & (data["metric"] == "GPU_UTIL")]
    assert list(zip(seren["value_at_most"], seren["cumulative_share"], strict=True)) == [
        (0.5, 0.25), (51.5, 0.5), (98.5, 0.75), (99.5, 1.0),
    ]  # fmt: skip
    assert set(seren["published_median"]) == {99.0} and set(seren["published_share_at_zero"]) == {0.31}
    kalos = data[data["cluster_name"] == "kalos"]
    assert list(zip(kalos["metric"], kalos["value_at_most"], kalos["samples"], strict=True)) == [
        ("SM_ACTIVE", 12.5, 2), ("SM_ACTIVE", 41.0, 2),
    ]  # fmt: skip


@pytest.mark.slow
def test_report_states_real_and_synthetic_rows(reports: Materialized) -> None:
    path = reports.settings.report_dir / REPORT_FILE
    text = path.read_text(encoding="utf-8")
    assert "⚠️ SYNTHETIC DATA: 23 of 427 fact rows are synthetic" in text
    assert "| requests (marts.fct_request) | BurstGPT_1.csv (v1.1) | 400 | 0 | 400 |" in text
    assert "| requests (marts.fct_request) | BurstGPT_3.csv (v2.0) | 0 | 2 | 2 |" in text
    assert "| jobs (marts.fct_job) | seren | 2 | 3 | 5 |" in text
    assert "| **all facts** | | **404** | **23** | **427** |" in text
    assert "day N" in text and "unpublished" in text  # BURSTGPT_START_DATE unset
    for link in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        assert not Path(link).is_absolute() and (path.parent / link).exists(), link
    assert {f"{s.name}.png" for s in FIGURES} == set(re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text))
    # published beside computed, from the marts' published_* columns
    assert "| BurstGPT_1.csv | 400 / 1,429,737 | 17 / 25,443 | 383 / 1,404,294 |" in text
    assert "| seren | GPU_UTIL | 4 | 74.5 / 99 | 0.250 / 0.310 | 99 / — |" in text
    # reconciliation first: every published number with its verdict; synthetic rows are never a result
    assert text.index("### Reconciliation") < text.index("### Jobs per cluster")
    assert (
        "| rows | BurstGPT_1.csv |  | 400 / 1,429,737 | real | mismatch | differs by 1429337.0, more than the "
        "tolerance of 0.0 | rows of the released BurstGPT_1.csv |"
    ) in text
    assert (
        "| jobs | seren |  | 5 / 818,327 | mixed | not_comparable | the rows are synthetic (3 of 5 rows): not a "
        "real-data result |"
    ) in text
    assert "| pass |" not in text
    # the notebook figure by figure, each with its mart and, when drawn, its figure
    assert text.index("## The upstream notebook, figure by figure") > text.index(
        "## Computed beside published"
    )
    assert (
        "| box_gpu_num: GPUs per job by type | `gpu_num_by_type` | [gpu_num_by_type.png](gpu_num_by_type.png) |"
        in text
    )
    assert (
        "| cdf_temperature: GPU and memory temperature | `utilization_cdf` | "
        "[utilization_cdf.png](utilization_cdf.png) |" in text
    )
    assert "| beyond the notebook: BurstGPT_3 sessions | `burstgpt_sessions` | — |" in text
    assert (
        "| `job_duration_cdf_by_type` | [job_duration_cdf_by_type.png](job_duration_cdf_by_type.png) |"
        in text
    )

    meta = reports.metadata[report_key("report")]
    assert (meta["rows_real"], meta["rows_synthetic"], meta["has_synthetic_rows"]) == (404, 23, True)
    assert meta["figures"] == len(FIGURES)
    assert "SYNTHETIC DATA" in str(meta["summary"]) and "BurstGPT_1.csv (v1.1) | 400 | 0" in str(
        meta["summary"]
    )


@pytest.mark.slow
def test_empty_or_missing_marts_draw_no_data(empty_jobs: Materialized) -> None:
    for spec in FIGURES:
        meta = empty_jobs.metadata[report_key(spec.name)]
        assert_png((empty_jobs.settings.report_dir / f"{spec.name}.png").read_bytes())
        empty = spec.name in JOB_FIGURES | NOTEBOOK_JOB_FIGURES | UTILIZATION_FIGURES
        assert (meta["rows_plotted"] == 0) is empty, spec.name
        assert ("no_data" in meta) is empty, spec.name
    assert "gpu_num_cdf does not exist" in str(empty_jobs.metadata[report_key("gpu_num_cdf")]["no_data"])
    text = (empty_jobs.settings.report_dir / REPORT_FILE).read_text(encoding="utf-8")
    assert "| requests (marts.fct_request) | BurstGPT_1.csv (v1.1) | 400 | 0 | 400 |" in text
    assert "jobs (marts.fct_job)" not in text
    assert "### Jobs per cluster" in text and "No rows." in text


@pytest.mark.slow
def test_reports_read_no_sample(reports: Materialized, without_samples: Materialized) -> None:
    """With every relation of samples dropped, each figure plots and states the same rows, and the report
    counts the same samples per cluster: figures and report read marts only."""
    for spec in FIGURES:
        key = report_key(spec.name)
        for field in ("rows_plotted", "source_rows_real", "source_rows_synthetic", f"rows_by_{spec.series}"):
            assert without_samples.metadata[key][field] == reports.metadata[key][field], (spec.name, field)
        assert "no_data" not in without_samples.metadata[key], spec.name
    origins = [
        r for r in reports.metadata[report_key("report")]["origin_by_dataset"] if "samples" in r["dataset"]
    ]
    assert origins and origins == [
        r
        for r in without_samples.metadata[report_key("report")]["origin_by_dataset"]
        if "samples" in r["dataset"]
    ]


@pytest.mark.parametrize("spec", FIGURES, ids=lambda s: s.name)
def test_figure_functions_draw_no_data_for_an_empty_frame(spec) -> None:
    assert_png(spec.plot(pd.DataFrame()))


def test_calendar_axes_when_burstgpt_day_0_is_set() -> None:
    hours = pd.DataFrame(
        {
            "file_number": [1] * 48,
            "release": ["v1.1"] * 48,
            "hour_index": range(48),
            "day_index": [h // 24 for h in range(48)],
            "hour_of_day": [h % 24 for h in range(48)],
            "hour_start_utc": pd.date_range("2023-03-01", periods=48, freq="h"),
            "requests": [(h * 7) % 13 for h in range(48)],
            "failed_requests": [0] * 48,
        }
    )
    assert_png(figures.requests_per_hour(hours))
    weekdays = pd.DataFrame(
        {
            "file_number": [1] * 7,
            "release": ["v1.1"] * 7,
            "relative_weekday": range(7),
            "requests": [10] * 7,
            "failed_requests": [0] * 7,
            "days_observed": [1] * 7,
            "mean_requests_per_day": [10.0] * 7,
        }
    )
    assert_png(figures.requests_per_weekday(weekdays, start_date=date(2023, 3, 1)))
