"""The notebook map of report.md names only analysis marts that exist and report figures that are drawn."""

from pipelines.report.catalog import FIGURES
from pipelines.report.notebook_map import NOTEBOOK_FIGURES, notebook_section
from pipelines.warehouse.dbt_build import DBT_PROJECT_DIR

ANALYSIS = DBT_PROJECT_DIR / "models" / "analysis"


def test_every_mart_and_figure_of_the_map_exists() -> None:
    drawn = {spec.name for spec in FIGURES}
    for figure, marts, report_figure in NOTEBOOK_FIGURES:
        for mart in (m.strip() for m in marts.split(",")):
            assert (ANALYSIS / f"{mart}.sql").exists(), f"{figure}: no model {mart}"
        assert not report_figure or report_figure in drawn, f"{figure}: no report figure {report_figure}"


def test_every_notebook_mart_is_in_the_map() -> None:
    mapped = {m.strip() for _, marts, _ in NOTEBOOK_FIGURES for m in marts.split(",")}
    for name in ("job_duration_cdf_by_type", "job_state_shares_by_type", "gpu_num_by_type",
                 "cluster_occupancy_hourly", "user_gpu_hours", "user_gpu_concentration",
                 "failure_rate_by_gpu_bucket", "tokens_per_hour", "tokens_per_day", "burstgpt_sessions",
                 "elapsed_by_response_tokens", "kv_cache_reuse"):  # fmt: skip
        assert name in mapped, name


def test_a_figure_not_drawn_is_not_linked() -> None:
    text = notebook_section(["job_duration_cdf_by_type"])
    assert (
        "| `job_duration_cdf_by_type` | [job_duration_cdf_by_type.png](job_duration_cdf_by_type.png) |"
        in text
    )
    assert "| `gpu_num_cdf` | — |" in text
    assert text.count("\n| ") == len(NOTEBOOK_FIGURES) + 1  # the header row and one row per figure
