"""The report's figures: for each, its name (asset ``report/<name>``, file ``<name>.png``), the analysis marts
and the fact it reads, its query, the rows whose origin its footer states, and the function that draws it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pipelines.report import figures, queries

PlotFn = Callable[..., bytes]


@dataclass(frozen=True)
class FigureSpec:
    name: str
    title: str
    description: str
    marts: tuple[str, ...]  # analysis models read (asset keys analysis/<mart>)
    fact: str  # the fact behind the marts (asset key marts/<fact>)
    fact_rows: str  # a WHERE clause on the fact: the rows the figure stands on
    fact_label: str  # those rows, in words, for the footer
    sql: str
    plot: PlotFn
    series: str  # the column one line/bar group is drawn per (rows per series go to the metadata)
    uses_start_date: bool = False  # plot takes start_date= (BURSTGPT_START_DATE)

    def origin_sql(self) -> str:
        return queries.origin_sql(self.fact, self.fact_rows)


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        name="job_state_shares",
        title="Final state of GPU jobs per cluster",
        description="Shares of completed / cancelled / failed / other GPU jobs per cluster, by count and by "
        "GPU time (the file's duration x GPUs), beside cluster_summary.csv's published rates.",
        marts=("job_state_shares",),
        fact="fct_job",
        fact_rows="is_gpu_job",
        fact_label="GPU jobs (marts.fct_job)",
        sql=queries.JOB_STATE_SHARES,
        plot=figures.job_state_shares,
        series="cluster_name",
    ),
    FigureSpec(
        name="job_type_shares",
        title="Job types of GPU jobs per cluster",
        description="Shares of job types (Pretrain, SFT, Eval, …) among GPU jobs per cluster, by count and by "
        "GPU time, beside the paper's published figure values.",
        marts=("job_type_shares",),
        fact="fct_job",
        fact_rows="is_gpu_job",
        fact_label="GPU jobs (marts.fct_job)",
        sql=queries.JOB_TYPE_SHARES,
        plot=figures.job_type_shares,
        series="cluster_name",
    ),
    FigureSpec(
        name="job_duration_cdf",
        title="GPU-job duration and queueing delay (CDF)",
        description="CDF of GPU-job duration (end - start; dashed: the file's reported duration) and queueing "
        "delay per cluster on the upstream notebook's 2**i s grid, log x.",
        marts=("job_duration_cdf",),
        fact="fct_job",
        fact_rows="is_gpu_job",
        fact_label="GPU jobs (marts.fct_job)",
        sql=queries.JOB_DURATION_CDF,
        plot=figures.job_duration_cdf,
        series="cluster_name",
    ),
    FigureSpec(
        name="gpu_num_cdf",
        title="GPUs per GPU job (CDF)",
        description="CDF of the GPUs a GPU job requests per cluster, weighted by jobs and by GPU time.",
        marts=("gpu_num_cdf",),
        fact="fct_job",
        fact_rows="is_gpu_job",
        fact_label="GPU jobs (marts.fct_job)",
        sql=queries.GPU_NUM_CDF,
        plot=figures.gpu_num_cdf,
        series="cluster_name",
    ),
    FigureSpec(
        name="requests_per_hour",
        title="BurstGPT requests per hour",
        description="BurstGPT requests per hour over the trace (day N; UTC only when BURSTGPT_START_DATE is "
        "set) and the mean per hour of day, per file.",
        marts=("requests_per_hour",),
        fact="fct_request",
        fact_rows="true",
        fact_label="requests (marts.fct_request)",
        sql=queries.REQUESTS_PER_HOUR,
        plot=figures.requests_per_hour,
        series="file_number",
    ),
    FigureSpec(
        name="requests_per_weekday",
        title="BurstGPT requests by weekday",
        description="Mean BurstGPT requests per observed day by relative weekday (day N mod 7; weekday names "
        "only when BURSTGPT_START_DATE is set), per file.",
        marts=("requests_per_weekday",),
        fact="fct_request",
        fact_rows="true",
        fact_label="requests (marts.fct_request)",
        sql=queries.REQUESTS_PER_WEEKDAY,
        plot=figures.requests_per_weekday,
        series="file_number",
        uses_start_date=True,
    ),
    FigureSpec(
        name="token_distribution",
        title="Tokens per request by model",
        description="Request and response tokens of not-failed BurstGPT requests per model, log type and "
        "file: median, p90, p99, mean and max (log x).",
        marts=("token_distribution",),
        fact="fct_request",
        fact_rows="true",
        fact_label="requests (marts.fct_request)",
        sql=queries.TOKEN_DISTRIBUTION,
        plot=figures.token_distribution,
        series="model_name",
    ),
    FigureSpec(
        name="gpu_utilization_cdf",
        title="GPU utilization per cluster (CDF)",
        description="CDF of GPU_UTIL (solid) and SM_ACTIVE (dashed) samples per cluster at 1 % steps (counted "
        "on marts.fct_node_metric: the mart's quantiles are too coarse for a curve), with the published "
        "median and share at 0 from analysis.utilization_percentiles as stars.",
        marts=("utilization_percentiles",),
        fact="fct_node_metric",
        fact_rows="metric in ({})".format(", ".join(f"'{m}'" for m in queries.GPU_METRICS)),
        fact_label="GPU samples (marts.fct_node_metric)",
        sql=queries.GPU_UTILIZATION,
        plot=figures.gpu_utilization_cdf,
        series="cluster_name",
    ),
)

REPORT_NAME = "report"
