"""The SQL the report reads from ``trace.duckdb``: one query per figure (the analysis marts), the origin of the
rows behind each figure (``_data_origin`` of the facts), and the published-vs-computed tables of the page.

Queries read only; :func:`fetch` runs a batch on one read-only connection. A relation that does not exist
(its dbt model never built) reads as an empty frame, so the report says "no data" instead of failing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pipelines.settings import Settings

if TYPE_CHECKING:
    import pandas as pd

# Figures ---------------------------------------------------------------------------------------------------


def _gpu_job_shares(mart: str, category: str) -> str:
    """A shares mart (``job_state_shares``, ``job_type_shares``): per cluster and ``category`` value."""
    return f"""
select cluster_name, {category}, gpu_jobs, share_by_count, share_by_reported_gpu_time,
    published_share_by_count, published_share_by_gpu_time
from analysis.{mart}
order by cluster_name, {category}
"""


JOB_STATE_SHARES = _gpu_job_shares("job_state_shares", "state_group")
JOB_TYPE_SHARES = _gpu_job_shares("job_type_shares", "job_type")

JOB_DURATION_CDF = """
select cluster_name, measure, grid_index, threshold_s, gpu_jobs, gpu_jobs_at_or_below, cumulative_share
from analysis.job_duration_cdf
order by cluster_name, measure, grid_index
"""

GPU_NUM_CDF = """
select cluster_name, gpu_num_at_most, gpu_jobs_at_or_below, share_of_jobs, share_of_gpu_time
from analysis.gpu_num_cdf
order by cluster_name, gpu_num_at_most
"""

REQUESTS_PER_HOUR = """
select file_number, release, hour_index, day_index, hour_of_day, hour_start_utc, requests, failed_requests
from analysis.requests_per_hour
order by file_number, hour_index
"""

REQUESTS_PER_WEEKDAY = """
select file_number, release, relative_weekday, requests, failed_requests, days_observed, mean_requests_per_day
from analysis.requests_per_weekday
order by file_number, relative_weekday
"""

TOKEN_DISTRIBUTION = """
select file_number, release, model_name, log_type, requests, not_failed_requests,
    request_tokens_p50, request_tokens_p90, request_tokens_p99, request_tokens_mean, request_tokens_max,
    response_tokens_p50, response_tokens_p90, response_tokens_p99, response_tokens_mean, response_tokens_max
from analysis.token_distribution
order by model_name, log_type, file_number
"""

GPU_METRICS = ("GPU_UTIL", "SM_ACTIVE")
GPU_METRIC_ROWS = "metric in ({})".format(", ".join(f"'{m}'" for m in GPU_METRICS))  # a WHERE clause

# The CDFs of analysis.utilization_cdf (0.5 % bins, merged from per-partition histograms, so the report reads
# no samples); analysis.utilization_percentiles gives the GPUs and the published points drawn beside them. A
# bin above the grid has no upper edge: it is drawn at its lower one.
GPU_UTILIZATION = f"""
select cdf.cluster_name, cdf.metric, coalesce(cdf.bin_upper, cdf.bin_lower) as value_at_most,
    cast(sum(cdf.samples) over (partition by cdf.cluster_name, cdf.metric) as bigint) as samples,
    cdf.cumulative_share,
    marts.gpus, marts.p50, marts.share_at_zero, marts.published_median, marts.published_share_at_zero
from analysis.utilization_cdf as cdf
left join analysis.utilization_percentiles as marts
    on cdf.cluster_name = marts.cluster_name and cdf.metric = marts.metric
where cdf.{GPU_METRIC_ROWS}
order by cdf.cluster_name, cdf.metric, cdf.bin_index
"""

GRID_METRIC_ROWS = "metric in (select metric from analysis.utilization_grid)"  # a WHERE clause

UTILIZATION_CDF = """
select cdf.cluster_name, cdf.metric, cdf.plotted_unit, grid.grid_kind,
    coalesce(cdf.bin_lower, cdf.bin_upper) as value_from, coalesce(cdf.bin_upper, cdf.bin_lower) as value_at_most,
    cdf.cumulative_share
from analysis.utilization_cdf as cdf
inner join analysis.utilization_grid as grid on cdf.metric = grid.metric
order by cdf.metric, cdf.cluster_name, cdf.bin_index
"""

# Where the rows come from ----------------------------------------------------------------------------------

_ORIGIN_COUNTS = """
    coalesce(sum(case when _data_origin = 'real' then 1 else 0 end), 0) as real_rows,
    coalesce(sum(case when _data_origin = 'synthetic' then 1 else 0 end), 0) as synthetic_rows"""

# The fact of samples is counted where its one scan counted it, hour by hour: the report reads no sample.
_SAMPLE_COUNTS = """
    coalesce(sum(real_samples), 0) as real_rows,
    coalesce(sum(synthetic_samples), 0) as synthetic_rows"""
SAMPLE_ORIGINS = "analysis.utilization_hourly"

# The relation each fact's rows are counted by origin in, and its count columns.
ORIGIN_SOURCES: dict[str, tuple[str, str]] = {
    "fct_job": ("marts.fct_job", _ORIGIN_COUNTS),
    "fct_request": ("marts.fct_request", _ORIGIN_COUNTS),
    "fct_node_metric": (SAMPLE_ORIGINS, _SAMPLE_COUNTS),
    "fct_server_power": ("marts.fct_server_power", _ORIGIN_COUNTS),
}


def origin_sql(fact: str, where: str = "true") -> str:
    """Real and synthetic rows of ``marts.<fact>`` (one row: real_rows, synthetic_rows)."""
    relation, counts = ORIGIN_SOURCES[fact]
    return f"select {counts}\nfrom {relation}\nwhere {where}"


# One query per fact so that a fact that was never built leaves the others readable.
DATASET_ORIGINS: dict[str, str] = {
    "jobs": f"""
select 'jobs (marts.fct_job)' as dataset, clusters.cluster_name as scope, {_ORIGIN_COUNTS}
from marts.fct_job as jobs
inner join marts.dim_cluster as clusters on jobs.cluster_key = clusters.cluster_key
group by clusters.cluster_name
order by clusters.cluster_name
""",
    "requests": f"""
select 'requests (marts.fct_request)' as dataset,
    'BurstGPT_' || cast(file_number as varchar) || '.csv (' || release || ')' as scope, {_ORIGIN_COUNTS}
from marts.fct_request
group by file_number, release
order by file_number
""",
    "utilization": f"""
select 'utilization samples (marts.fct_node_metric)' as dataset,
    cluster_name || ', ' || metric_level || ' metrics' as scope, {_SAMPLE_COUNTS}
from {SAMPLE_ORIGINS}
group by cluster_name, metric_level
order by cluster_name, metric_level
""",
    "power": f"""
select 'server power samples (marts.fct_server_power)' as dataset, ipmi_file as scope, {_ORIGIN_COUNTS}
from marts.fct_server_power
group by ipmi_file
order by ipmi_file
""",
}


# Published beside computed (the marts' published_* columns) ----------------------------------------------

COMPARISON_MARTS = (
    "reconciliation",
    "cluster_job_counts",
    "job_state_shares",
    "job_type_shares",
    "job_duration_percentiles",
    "request_file_summary",
    "utilization_percentiles",
)


def _published_gpu_job_shares(mart: str, category: str) -> str:
    """A shares mart's rows that have a published share, each share beside its published one."""
    return f"""
select cluster_name, {category}, share_by_count, published_share_by_count,
    share_by_reported_gpu_time, published_share_by_gpu_time
from analysis.{mart}
where published_share_by_count is not null or published_share_by_gpu_time is not null
order by cluster_name, {category}
"""


COMPARISONS: dict[str, str] = {
    "reconciliation": """
select published_source, measure, scope, subject, computed_value, published_value, data_origin, verdict,
    reason, population
from analysis.reconciliation
order by published_source desc, scope, measure, subject
""",
    "jobs": """
select cluster_name, jobs, real_jobs, synthetic_jobs, published_jobs_in_file, summary_jobs,
    gpu_jobs, published_gpu_jobs_in_file, summary_gpu_jobs
from analysis.cluster_job_counts
order by cluster_name
""",
    "states": _published_gpu_job_shares("job_state_shares", "state_group"),
    "types": _published_gpu_job_shares("job_type_shares", "job_type"),
    "durations": """
select cluster_name, measure, gpu_jobs, p50_s, published_median_s, mean_s, published_mean_s,
    max_s, published_max_s
from analysis.job_duration_percentiles
where measure in ('reported_duration_s', 'queue_s')
    and (published_median_s is not null or published_mean_s is not null or published_max_s is not null)
order by cluster_name, measure
""",
    "requests": """
select file_name, requests, published_rows, failed_requests, published_failed_requests,
    not_failed_requests, published_not_failed_requests, max_request_tokens, published_max_request_tokens,
    max_response_tokens, published_max_response_tokens, mean_not_failed_requests_per_hour,
    published_mean_requests_per_hour
from analysis.request_file_summary
order by file_number
""",
    "utilization": """
select cluster_name, metric, samples, p50, published_median, share_at_zero, published_share_at_zero,
    max_value, published_max
from analysis.utilization_percentiles
where published_median is not null or published_share_at_zero is not null or published_max is not null
order by cluster_name, metric
""",
}


# The fitted models (pipelines/analysis): a summary per model × log type × window kind, and the token fits.
FITS: dict[str, str] = {
    "arrivals": """
select model_name, log_type, window_kind, count(*) as windows,
    median(request_rate_per_s) as median_rate_per_s,
    quantile_cont(gamma_shape, 0.1) as shape_p10, median(gamma_shape) as shape_p50,
    quantile_cont(gamma_shape, 0.9) as shape_p90, median(gamma_shape_mle) as shape_mle_p50,
    median(ks_statistic) as median_ks_statistic,
    case when bool_and(data_origin = 'real') then 'real'
        when bool_and(data_origin = 'synthetic') then 'synthetic' else 'mixed' end as data_origin
from analysis.arrival_fits
group by model_name, log_type, window_kind
order by model_name, log_type, window_kind
""",
    "tokens": """
select model_name, log_type, tokens, requests, median_tokens, lognormal_median, lognormal_sigma,
    lognormal_ks_statistic, zipf_a, zipf_ks_statistic, better_fit, data_origin
from analysis.token_length_fits
order by model_name, log_type, tokens
""",
}


def fetch(settings: Settings, queries: Mapping[str, str]) -> dict[str, pd.DataFrame]:
    """Run ``queries`` on one read-only connection; a missing relation gives an empty frame whose
    ``attrs["missing"]`` says which.

    The warehouse's writer lock is held while reading: DuckDB refuses a reader while a writer (dbt, the
    view refresh) has the file open, so a report asset waits for a concurrent writer (another run, the dbt
    docs step) instead of failing. The reads take a moment; writers wait at most that long.
    """
    import duckdb
    import pandas as pd

    from pipelines.warehouse.db import reader, writer_lock

    frames: dict[str, pd.DataFrame] = {}
    with writer_lock(settings, wait_message="report: waiting for the warehouse writer before reading"):
        con = reader(settings)
        try:
            for name, sql in queries.items():
                try:
                    frames[name] = con.execute(sql).df()
                except duckdb.CatalogException as exc:  # the relation was never built
                    frames[name] = pd.DataFrame()
                    frames[name].attrs["missing"] = str(exc).splitlines()[0].removeprefix("Catalog Error: ")
        finally:
            con.close()
    return frames
