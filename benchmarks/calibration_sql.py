"""The calibration's generated values, as SQL on the built warehouse — the one place these queries live.

Each query returns ``(key, value)`` rows under the keys of ``benchmarks.published``. They read the
relations named in ``RELATIONS``: today the raw views (``raw.<family>`` in ``$WAREHOUSE_DIR/trace.duckdb``);
when the analysis marts can answer them, point ``RELATIONS`` (or a query) at the marts instead — nothing
else changes. Never from the generator's parameters.

Definitions (as the paper and the upstream notebook): GPU jobs are ``gpu_num > 0``; the final-state groups
count TIMEOUT and NODE_FAIL as failed; GPU time is the file's ``gpu_time``; run and queue are the file's
``duration`` and ``queue``; a failed request has 0 response tokens; a duplicate is an exact repeat of an
earlier row of the same file; requests per hour are rows over the file's time span.
"""

from __future__ import annotations

from dataclasses import dataclass

RELATIONS = {
    "seren_jobs": "raw.acme__seren_jobs",
    "kalos_jobs": "raw.acme__kalos_jobs",
    "requests": "raw.burstgpt__requests",
    "requests_without_fails": "raw.burstgpt__requests_without_fails",
    "gpu_metrics": "raw.acme__gpu_metrics",
    "node_metrics": "raw.acme__node_metrics",
}


@dataclass(frozen=True)
class CalibrationQuery:
    name: str
    sql: str  # a template over RELATIONS ({seren_jobs}, ...), returning (key, value)

    def render(self, relations: dict[str, str] | None = None) -> str:
        return self.sql.format(**(relations or RELATIONS))


_GPU_JOBS = """
jobs as (
    select 'seren' as cluster, gpu_num, type, state, duration, queue, gpu_time from {seren_jobs}
    union all
    select 'kalos' as cluster, gpu_num, type, state, duration, queue, gpu_time from {kalos_jobs}
),
gpu as (select * from jobs where gpu_num > 0)"""

_STATE_GROUP = """case
        when state = 'COMPLETED' then 'completed'
        when state = 'CANCELLED' then 'cancelled'
        when state in ('FAILED', 'TIMEOUT', 'NODE_FAIL') then 'failed'
        else 'other' end"""

JOB_SIZES = CalibrationQuery(
    "job sizes",
    f"""with {_GPU_JOBS}
select cluster || '.rows', count(*)::double from jobs group by cluster
union all
select cluster || '.gpu_job_share', avg((gpu_num > 0)::int) from jobs group by cluster""",
)

GPU_STATE_SHARES = CalibrationQuery(
    "GPU-job final states",
    f"""with {_GPU_JOBS},
grouped as (
    select cluster, {_STATE_GROUP} as grp, count(*) as n, sum(gpu_time) as t from gpu group by all
)
select cluster || '.gpu_state_share.count.' || grp, n / sum(n) over (partition by cluster) from grouped
union all
select cluster || '.gpu_state_share.gpu_time.' || grp, t / sum(t) over (partition by cluster) from grouped""",
)

GPU_TYPE_SHARES = CalibrationQuery(
    "GPU-job types",
    f"""with {_GPU_JOBS},
grouped as (select cluster, type, count(*) as n, sum(gpu_time) as t from gpu group by all)
select cluster || '.gpu_type_share.count.' || type, n / sum(n) over (partition by cluster) from grouped
union all
select cluster || '.gpu_type_share.gpu_time.' || type, t / sum(t) over (partition by cluster) from grouped""",
)

GPU_JOB_SHAPE = CalibrationQuery(
    "GPU-job shape",
    f"""with {_GPU_JOBS}
select cluster || '.gpu_num.share_1gpu', avg((gpu_num = 1)::int) from gpu group by cluster
union all
select cluster || '.gpu_num.max', max(gpu_num)::double from gpu group by cluster
union all
select cluster || '.gpu_jobs.median_run_s', median(duration) from gpu group by cluster
union all
select cluster || '.gpu_jobs.median_queue_s', median(queue) from gpu group by cluster""",
)

KALOS_STATES = CalibrationQuery(
    "Kalos states",
    """select 'kalos.all_state_share.' || state, count(*) / sum(count(*)) over () from {kalos_jobs} group by state
union all
select 'kalos.running_rows', count(*) filter (where state = 'RUNNING')::double from {kalos_jobs}""",
)

_FILE_NUMBER = "regexp_extract(_source_file, '_(\\d+)\\.csv$', 1)"

REQUEST_FILES = CalibrationQuery(
    "BurstGPT files",
    f"""with req as (select {_FILE_NUMBER} as n, response_tokens from {{requests}})
select 'burstgpt.' || n || '.rows', count(*)::double from req group by n
union all
select 'burstgpt.' || n || '.failed_share', avg((response_tokens = 0)::int) from req group by n""",
)

REQUESTS_WITHOUT_FAILS = CalibrationQuery(
    "BurstGPT without-fails files",
    f"""with wf as (select {_FILE_NUMBER} as n, * from {{requests_without_fails}}),
copies as (
    select n, count(*) as k from wf
    group by n, timestamp_s, session_id, elapsed_time, model, request_tokens, response_tokens, total_tokens,
        log_type
)
select 'burstgpt.' || n || '.gpt4_share', avg((model = 'GPT-4')::int) from wf group by n
union all
select 'burstgpt.' || n || '.conversation_share', avg((log_type = 'Conversation log')::int) from wf group by n
union all
select 'burstgpt.' || n || '.requests_per_hour', count(*) / ((max(timestamp_s) - min(timestamp_s)) / 3600.0)
from wf group by n
union all
select 'burstgpt.' || n || '.duplicate_share', sum(k - 1) / sum(k) from copies group by n""",
)

GPU_UTILIZATION = CalibrationQuery(
    "GPU utilization",
    """select cluster || '.gpu_util.median', median(value) from {gpu_metrics} where metric = 'GPU_UTIL'
group by cluster
union all
select cluster || '.gpu_util.zero_share', avg((value = 0)::int) from {gpu_metrics} where metric = 'GPU_UTIL'
group by cluster""",
)

NODE_CPU = CalibrationQuery(
    "node CPU",
    """select cluster || '.node_cpu.median', median(value) from {node_metrics}
where metric = 'NODE_CPU_UTILIZATION' group by cluster
union all
select cluster || '.node_cpu.max', max(value) from {node_metrics} where metric = 'NODE_CPU_UTILIZATION'
group by cluster""",
)

QUERIES = (
    JOB_SIZES,
    GPU_STATE_SHARES,
    GPU_TYPE_SHARES,
    GPU_JOB_SHAPE,
    KALOS_STATES,
    REQUEST_FILES,
    REQUESTS_WITHOUT_FAILS,
    GPU_UTILIZATION,
    NODE_CPU,
)
