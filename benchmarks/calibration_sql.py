"""The calibration's generated values, as SQL on the built marts — the one place these queries live.

Each query returns ``(key, value)`` rows under the keys of ``benchmarks.published``. They read the dbt
marts of ``$WAREHOUSE_DIR/trace.duckdb`` (``MARTS``: the analysis marts that reproduce the papers' numbers,
and the facts where no analysis mart holds a number), never the raw files and never the generator's
parameters. So a number passes only if the sample, the load, the quarantine and the models together give
it back.

Definitions (the marts', as the paper and the upstream notebook): GPU jobs are ``gpu_num > 0``; the state
groups count TIMEOUT and NODE_FAIL as failed; GPU time is the file's ``gpu_time`` (``reported_gpu_s``); run
and queue are the file's ``duration`` and ``queue``; a failed request has 0 response tokens, and the
without-fails numbers are those of the not-failed requests; a duplicate is an exact repeat of an earlier
request of the same file; job rows are jobs plus repeated job lines. The marts hold what passed validation:
quarantined rows are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass

# The marts the queries read (dbt models); the calibration phase builds exactly these and their parents.
MARTS = (
    "cluster_job_counts",
    "job_state_shares",
    "job_type_shares",
    "job_state_counts",
    "gpu_num_cdf",
    "job_duration_percentiles",
    "request_file_summary",
    "request_mix",
    "utilization_percentiles",
    "fct_job",
    "fct_request",
)


@dataclass(frozen=True)
class CalibrationQuery:
    name: str
    sql: str  # returns (key, value)
    marts: tuple[str, ...]  # the marts it reads


JOB_SIZES = CalibrationQuery(
    "job sizes",
    """select cluster_name || '.rows', cast(jobs + duplicate_job_lines as double) from analysis.cluster_job_counts
union all
select cluster_name || '.gpu_job_share', gpu_jobs / jobs from analysis.cluster_job_counts where jobs > 0""",
    ("cluster_job_counts",),
)


def _gpu_job_shares(name: str, mart: str, key: str, column: str) -> CalibrationQuery:
    """Shares of GPU jobs by count and by GPU time, per cluster and ``column`` value, from a shares mart."""
    return CalibrationQuery(
        name,
        f"""select cluster_name || '.{key}.count.' || {column}, share_by_count from analysis.{mart}
union all
select cluster_name || '.{key}.gpu_time.' || {column}, share_by_reported_gpu_time from analysis.{mart}""",
        (mart,),
    )


def _per_cluster(mart: str, column: str, picks: tuple[tuple[str, str, str], ...]) -> str:
    """For each ``(key, value, match)``: ``<cluster>.<key>`` = ``value`` on the rows of ``analysis.<mart>``
    whose ``column`` is ``match``."""
    return "\nunion all\n".join(
        f"select cluster_name || '.{key}', {value} from analysis.{mart}\nwhere {column} = '{match}'"
        for key, value, match in picks
    )


GPU_STATE_SHARES = _gpu_job_shares(
    "GPU-job final states", "job_state_shares", "gpu_state_share", "state_group"
)
GPU_TYPE_SHARES = _gpu_job_shares("GPU-job types", "job_type_shares", "gpu_type_share", "job_type")

GPU_JOB_SHAPE = CalibrationQuery(
    "GPU-job shape",
    """select cluster_name || '.gpu_num.share_1gpu', share_of_jobs from analysis.gpu_num_cdf where gpu_num_at_most = 1
union all
select c.cluster_name || '.gpu_num.max', max(j.gpu_num)::double
from marts.fct_job as j inner join marts.dim_cluster as c on j.cluster_key = c.cluster_key
where j.is_gpu_job group by c.cluster_name
union all
"""
    + _per_cluster(
        "job_duration_percentiles",
        "measure",
        (
            ("gpu_jobs.median_run_s", "p50_s", "reported_duration_s"),
            ("gpu_jobs.median_queue_s", "p50_s", "reported_queue_s"),
        ),
    ),
    ("gpu_num_cdf", "fct_job", "job_duration_percentiles"),
)

KALOS_STATES = CalibrationQuery(
    "Kalos states",
    """select 'kalos.all_state_share.' || job_state, jobs / sum(jobs) over () from analysis.job_state_counts
where cluster_name = 'kalos' and jobs > 0
union all
select 'kalos.running_rows', coalesce(sum(jobs), 0)::double from analysis.job_state_counts
where cluster_name = 'kalos' and job_state = 'RUNNING'""",
    ("job_state_counts",),
)

REQUEST_FILES = CalibrationQuery(
    "BurstGPT files",
    """select 'burstgpt.' || file_number || '.rows', requests::double from analysis.request_file_summary
union all
select 'burstgpt.' || file_number || '.failed_share', failed_requests / requests from analysis.request_file_summary
union all
select 'burstgpt.' || file_number || '.requests_per_hour', mean_not_failed_requests_per_hour
from analysis.request_file_summary""",
    ("request_file_summary",),
)

REQUEST_MIX = CalibrationQuery(
    "BurstGPT not-failed mix",
    """with shares as (
    select file_number, attribute, attribute_value,
        not_failed_requests / sum(not_failed_requests) over (partition by file_number, attribute) as share
    from analysis.request_mix
)
select 'burstgpt.' || file_number || '.gpt4_share', share from shares
where attribute = 'model' and attribute_value = 'GPT-4'
union all
select 'burstgpt.' || file_number || '.conversation_share', share from shares
where attribute = 'log_type' and attribute_value = 'Conversation log'""",
    ("request_mix",),
)

REQUEST_DUPLICATES = CalibrationQuery(
    "BurstGPT duplicates",
    """with copies as (
    select file_number, count(*) as k from marts.fct_request where not is_failed
    group by file_number, timestamp_s, session_id, elapsed_s, model_key, request_tokens, response_tokens,
        total_tokens, log_type_key
)
select 'burstgpt.' || file_number || '.duplicate_share', sum(k - 1) / sum(k) from copies group by file_number""",
    ("fct_request",),
)

UTILIZATION = CalibrationQuery(
    "utilization",
    _per_cluster(
        "utilization_percentiles",
        "metric",
        (
            ("gpu_util.median", "p50", "GPU_UTIL"),
            ("gpu_util.zero_share", "share_at_zero", "GPU_UTIL"),
            ("node_cpu.median", "p50", "NODE_CPU_UTILIZATION"),
            ("node_cpu.max", "max_value", "NODE_CPU_UTILIZATION"),
        ),
    ),
    ("utilization_percentiles",),
)

QUERIES = (
    JOB_SIZES,
    GPU_STATE_SHARES,
    GPU_TYPE_SHARES,
    GPU_JOB_SHAPE,
    KALOS_STATES,
    REQUEST_FILES,
    REQUEST_MIX,
    REQUEST_DUPLICATES,
    UTILIZATION,
)
