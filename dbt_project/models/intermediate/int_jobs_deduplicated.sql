-- One row per (cluster, job id): of repeated job ids the first by _row_number is kept;
-- duplicate_rows counts the others, over the whole family (not per partition). Every job of every
-- cluster: kept in the lake, not in trace.duckdb, and rebuilt whole on every run (lake_table_config).
{{ config(**lake_table_config()) }}

with

jobs as (
    select * from {{ ref('int_jobs_unioned') }}
),

ranked as (
    select
        *,
        row_number() over (
            partition by cluster_name, job_id
            order by _row_number, _source_file
        ) as occurrence,
        count(*) over (partition by cluster_name, job_id) as job_id_rows
    from jobs
),

final as (
    select
        cluster_name,
        job_id,
        user_name,
        job_type,
        job_state,
        source_state,
        node_num,
        gpu_num,
        cpu_num,
        mem_per_pod_gb,
        shared_mem_per_pod,
        submit_time_utc,
        start_time_utc,
        end_time_utc,
        utc_offset,
        queue_s,
        reported_queue_s,
        run_s,
        reported_duration_s,
        duration_rule,
        run_gpu_s,
        reported_gpu_s,
        reported_gpu_time_s,
        job_id_rows - 1 as duplicate_rows,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from ranked
    where occurrence = 1
)

select * from final
