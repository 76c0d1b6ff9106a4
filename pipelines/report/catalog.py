"""The report's figures: for each, its name (asset ``report/<name>``, file ``<name>.png``), title and
description, the fact rows whose origin its footer states, its query (of the analysis mart named like it,
unless ``reads`` says otherwise) and the function that draws it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pipelines.report import figures, notebook_figures, notebook_queries, queries

PlotFn = Callable[..., bytes]


@dataclass(frozen=True)
class FactRows:
    """The rows of ``marts.<fact>`` a figure stands on: a WHERE clause, and those rows in words (its footer)."""

    fact: str
    where: str
    label: str


GPU_JOBS = FactRows("fct_job", "is_gpu_job", "GPU jobs (marts.fct_job)")
REQUESTS = FactRows("fct_request", "true", "requests (marts.fct_request)")
GPU_SAMPLES = FactRows("fct_node_metric", queries.GPU_METRIC_ROWS, "GPU samples (marts.fct_node_metric)")
UTILIZATION_SAMPLES = FactRows(
    "fct_node_metric", queries.GRID_METRIC_ROWS, "utilization samples (marts.fct_node_metric)"
)


@dataclass(frozen=True)
class FigureSpec:
    name: str
    title: str
    description: str
    rows: FactRows  # the fact's rows behind the figure (asset key marts/<fact>)
    sql: str
    plot: PlotFn
    # the column one line/bar group is drawn per (rows per series go to the metadata)
    series: str = "cluster_name"
    # the analysis models read (asset keys analysis/<mart>), when not the one named like the figure
    reads: tuple[str, ...] = ()
    uses_start_date: bool = False  # plot takes start_date= (BURSTGPT_START_DATE)

    @property
    def marts(self) -> tuple[str, ...]:
        """The analysis models read."""
        return self.reads or (self.name,)

    @property
    def fact(self) -> str:
        return self.rows.fact

    @property
    def fact_label(self) -> str:
        return self.rows.label

    def origin_sql(self) -> str:
        return queries.origin_sql(self.rows.fact, self.rows.where)


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "job_state_shares",
        "Final state of GPU jobs per cluster",
        "Shares of completed / cancelled / failed / other GPU jobs per cluster, by count and by "
        "GPU time (the file's duration x GPUs), beside cluster_summary.csv's published rates.",
        GPU_JOBS, queries.JOB_STATE_SHARES, figures.job_state_shares,
    ),
    FigureSpec(
        "job_type_shares",
        "Job types of GPU jobs per cluster",
        "Shares of job types (Pretrain, SFT, Eval, …) among GPU jobs per cluster, by count and by "
        "GPU time, beside the paper's published figure values.",
        GPU_JOBS, queries.JOB_TYPE_SHARES, figures.job_type_shares,
    ),
    FigureSpec(
        "job_duration_cdf",
        "GPU-job duration and queueing delay (CDF)",
        "CDF of GPU-job duration (end - start; dashed: the file's reported duration) and queueing "
        "delay per cluster on the upstream notebook's 2**i s grid, log x.",
        GPU_JOBS, queries.JOB_DURATION_CDF, figures.job_duration_cdf,
    ),
    FigureSpec(
        "gpu_num_cdf",
        "GPUs per GPU job (CDF)",
        "CDF of the GPUs a GPU job requests per cluster, weighted by jobs and by GPU time.",
        GPU_JOBS, queries.GPU_NUM_CDF, figures.gpu_num_cdf,
    ),
    FigureSpec(
        "requests_per_hour",
        "BurstGPT requests per hour",
        "BurstGPT requests per hour over the trace (day N; UTC only when BURSTGPT_START_DATE is "
        "set) and the mean per hour of day, per file.",
        REQUESTS, queries.REQUESTS_PER_HOUR, figures.requests_per_hour, series="file_number",
    ),
    FigureSpec(
        "requests_per_weekday",
        "BurstGPT requests by weekday",
        "Mean BurstGPT requests per observed day by relative weekday (day N mod 7; weekday names "
        "only when BURSTGPT_START_DATE is set), per file.",
        REQUESTS, queries.REQUESTS_PER_WEEKDAY, figures.requests_per_weekday, series="file_number",
        uses_start_date=True,
    ),
    FigureSpec(
        "token_distribution",
        "Tokens per request by model",
        "Request and response tokens of not-failed BurstGPT requests per model, log type and "
        "file: median, p90, p99, mean and max (log x).",
        REQUESTS, queries.TOKEN_DISTRIBUTION, figures.token_distribution, series="model_name",
    ),
    FigureSpec(
        "gpu_utilization_cdf",
        "GPU utilization per cluster (CDF)",
        "CDF of GPU_UTIL (solid) and SM_ACTIVE (dashed) samples per cluster on 0.5 % bins (from "
        "analysis.utilization_cdf), with the published median and share at 0 from "
        "analysis.utilization_percentiles as stars.",
        GPU_SAMPLES, queries.GPU_UTILIZATION, figures.gpu_utilization_cdf,
        reads=("utilization_cdf", "utilization_percentiles"),
    ),
    FigureSpec(
        "utilization_cdf",
        "Utilization metrics per cluster (CDF)",
        "The upstream notebook's utilization CDFs: one panel per metric (GPU_UTIL, SM_ACTIVE, "
        "SM_OCCUPANCY, PIPE_TENSOR_ACTIVE, DRAM_ACTIVE, FB_USED as % of 80 GiB, temperatures, power, "
        "node CPU / memory / IB), a line per cluster, on the metric's fixed grid (analysis.utilization_grid).",
        UTILIZATION_SAMPLES, queries.UTILIZATION_CDF, figures.utilization_cdf,
    ),
    FigureSpec(
        "job_duration_cdf_by_type",
        "Duration and queueing delay per job type (CDF)",
        "CDF of GPU-job duration (the file's, on 2**0..2**21 s) and queueing delay (the file's, on "
        "2**0..2**15 s) per job type and cluster, the upstream notebook's per-type figure (log x).",
        GPU_JOBS, notebook_queries.JOB_DURATION_CDF_BY_TYPE, notebook_figures.job_duration_cdf_by_type,
    ),
    FigureSpec(
        "job_state_shares_by_type",
        "Final state of GPU jobs per job type",
        "Shares of completed / cancelled / failed / other GPU jobs within each cluster and job type, by "
        "count and by GPU time (the file's duration x GPUs).",
        GPU_JOBS, notebook_queries.JOB_STATE_SHARES_BY_TYPE, notebook_figures.job_state_shares_by_type,
    ),
    FigureSpec(
        "cluster_occupancy_hourly",
        "Cluster occupancy from the jobs",
        "GPUs running (GPU-hours per hour) and queued per cluster and hour (days since its first hour), from the jobs' submit, "
        "start and end times; right: mean running GPUs by the cluster's local hour of day (Asia/Shanghai "
        "for Seren and Kalos; UTC where the zone is undocumented).",
        GPU_JOBS, notebook_queries.CLUSTER_OCCUPANCY_HOURLY, notebook_figures.cluster_occupancy_hourly,
    ),
    FigureSpec(
        "user_gpu_hours",
        "GPU-hours concentration over users",
        "Share of each cluster's GPU-hours (the file's duration x GPUs) used by its heaviest users: the "
        "Lorenz curve from the top, with the top 1 / 5 / 10 % of users marked (analysis.user_gpu_concentration).",
        GPU_JOBS, notebook_queries.USER_GPU_HOURS, notebook_figures.user_gpu_hours,
    ),
    FigureSpec(
        "tokens_per_hour",
        "BurstGPT token throughput per hour",
        "Request and response tokens per second (hourly means) over the trace, per BurstGPT file; per day "
        "in analysis.tokens_per_day.",
        REQUESTS, notebook_queries.TOKENS_PER_HOUR, notebook_figures.tokens_per_hour, series="file_number",
    ),
    FigureSpec(
        "gpu_num_by_type",
        "GPUs per GPU job by type (box plot)",
        "GPUs requested per GPU job by cluster and job type: quartiles and whiskers at 1.5 x IQR (as the "
        "notebook's box_gpu_num, whose own box also counts CPU-only jobs: population all_jobs in the mart).",
        GPU_JOBS, notebook_queries.GPU_NUM_BY_TYPE, notebook_figures.gpu_num_by_type,
    ),
)  # fmt: skip

REPORT_NAME = "report"
