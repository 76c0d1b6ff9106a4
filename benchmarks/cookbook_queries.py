"""Five researcher questions over the built warehouse (the SQL cookbook), each beside the same question
written by hand against the raw lake's Parquet files.

``WAREHOUSE`` runs on a read-only connection to ``trace.duckdb`` (the marts: ``fct_node_metric``,
``fct_job``, ``fct_server_power`` and their dimensions). ``LAKE`` reads
``$WAREHOUSE_DIR/lake/raw/<family>/_partition=*/*.parquet`` directly — long format: ``time`` (UTC),
``cluster``, ``metric``, ``series`` (``<node IP>-<GPU>`` for DCGM metrics), ``value`` — with ``{lake}`` standing
for ``$WAREHOUSE_DIR/lake/raw``. The lake side neither drops repeated samples nor resolves keys, so its answers
can differ slightly; the pair is timed, not compared. ``IDLE_GPU_HOURS_FROM_HOURS`` answers one of them from
the hourly mart instead of the samples (shown in the docs, not timed).
"""

from __future__ import annotations

from dataclasses import dataclass

SAMPLE_SECONDS = 15  # one utilization sample covers 15 s


@dataclass(frozen=True)
class CookbookQuery:
    key: str
    question: str
    warehouse: str
    lake: str


def _lake(family: str) -> str:
    return f"read_parquet('{{lake}}/{family}/_partition=*/*.parquet')"


GPU = _lake("acme__gpu_metrics")

# Idle GPU-hours per cluster and day from the hourly counts the build merged from its one scan of the samples:
# the answer of idle_gpu_hours without reading a sample.
IDLE_GPU_HOURS_FROM_HOURS = f"""
select cluster_name, cast(to_timestamp(hour_index * 3600) at time zone 'UTC' as date) as day,
       sum(zero_samples) * {SAMPLE_SECONDS} / 3600.0 as idle_gpu_hours
from analysis.utilization_hourly
where metric = 'GPU_UTIL'
group by all
order by all
"""

QUERIES = (
    CookbookQuery(
        "gpu_util_per_node_day",
        "mean GPU_UTIL per node and day",
        """
select n.cluster_name, n.node_id, cast(f.sample_time_utc as date) as day, avg(f.value) as mean_gpu_util
from marts.fct_node_metric f
join marts.dim_node n on n.node_key = f.node_key
where f.metric = 'GPU_UTIL'
group by all
order by all
""",
        f"""
select cluster as cluster_name, split_part(series, '-', 1) as node_id, cast(time as date) as day,
       avg(value) as mean_gpu_util
from {GPU}
where metric = 'GPU_UTIL'
group by all
order by all
""",
    ),
    CookbookQuery(
        "idle_gpu_hours",
        "idle GPU-hours per cluster and day (GPU_UTIL = 0 samples × 15 s ÷ 3600)",
        f"""
select c.cluster_name, cast(f.sample_time_utc as date) as day,
       count(*) filter (where f.value = 0) * {SAMPLE_SECONDS} / 3600.0 as idle_gpu_hours
from marts.fct_node_metric f
join marts.dim_cluster c on c.cluster_key = f.cluster_key
where f.metric = 'GPU_UTIL'
group by all
order by all
""",
        f"""
select cluster as cluster_name, cast(time as date) as day,
       count(*) filter (where value = 0) * {SAMPLE_SECONDS} / 3600.0 as idle_gpu_hours
from {GPU}
where metric = 'GPU_UTIL'
group by all
order by all
""",
    ),
    CookbookQuery(
        "hottest_nodes",
        "the 10 hottest nodes (highest mean GPU temperature)",
        """
select n.cluster_name, n.node_id, avg(f.value) as mean_gpu_temp
from marts.fct_node_metric f
join marts.dim_node n on n.node_key = f.node_key
where f.metric = 'GPU_TEMP'
group by all
order by mean_gpu_temp desc, n.cluster_name, n.node_id
limit 10
""",
        f"""
select cluster as cluster_name, split_part(series, '-', 1) as node_id, avg(value) as mean_gpu_temp
from {GPU}
where metric = 'GPU_TEMP'
group by all
order by mean_gpu_temp desc, cluster_name, node_id
limit 10
""",
    ),
    CookbookQuery(
        "fb_used_while_jobs_run",
        "FB_USED p50/p90/p99 per cluster over the samples taken while a job of that cluster ran "
        "([start, end))",
        """
with samples as (
    select c.cluster_name, f.sample_time_utc as t, f.value
    from marts.fct_node_metric f
    join marts.dim_cluster c on c.cluster_key = f.cluster_key
    where f.metric = 'FB_USED'
),
jobs as (
    select c.cluster_name, j.start_time_utc, j.end_time_utc
    from marts.fct_job j
    join marts.dim_cluster c on c.cluster_key = j.cluster_key
    where j.start_time_utc is not null and j.end_time_utc > j.start_time_utc
),
busy as (
    select distinct s.cluster_name, s.t
    from (select distinct cluster_name, t from samples) s
    join jobs j on j.cluster_name = s.cluster_name and s.t >= j.start_time_utc and s.t < j.end_time_utc
)
select cluster_name, quantile_cont(value, 0.5) as p50, quantile_cont(value, 0.9) as p90,
       quantile_cont(value, 0.99) as p99, count(*) as samples
from samples join busy using (cluster_name, t)
group by all
order by all
""",
        f"""
with samples as (
    select cluster as cluster_name, time as t, value from {GPU} where metric = 'FB_USED'
),
jobs as (
    select 'kalos' as cluster_name, start_time, end_time from {_lake("acme__kalos_jobs")}
    union all
    select 'seren', start_time, end_time from {_lake("acme__seren_jobs")}
),
busy as (
    select distinct s.cluster_name, s.t
    from (select distinct cluster_name, t from samples) s
    join jobs j on j.cluster_name = s.cluster_name and s.t >= j.start_time and s.t < j.end_time
)
select cluster_name, quantile_cont(value, 0.5) as p50, quantile_cont(value, 0.9) as p90,
       quantile_cont(value, 0.99) as p99, count(*) as samples
from samples join busy using (cluster_name, t)
group by all
order by all
""",
    ),
    CookbookQuery(
        "power_by_server_type",
        "server power by server type (IPMI): mean total, CPU and memory watts",
        """
select server_type, avg(sys_total_power_w) as total_w, avg(cpu_power_w) as cpu_w,
       avg(memory_power_w) as memory_w, count(*) as samples
from marts.fct_server_power
group by all
order by all
""",
        f"""
select regexp_extract(_source_file, '([A-Za-z]+_[A-Za-z]+)_Power', 1) as server_type,
       avg(sys_total_power) as total_w, avg(cpu_power) as cpu_w, avg(memory_power) as memory_w,
       count(*) as samples
from {_lake("acme__ipmi_power")}
group by all
order by all
""",
    ),
)
