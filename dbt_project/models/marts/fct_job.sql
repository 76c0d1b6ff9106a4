-- Grain: one row per job (cluster + job id; a repeated job id keeps its first line). Both duration
-- readings, GPU seconds by both, queue delay, node/GPU/CPU counts, Kalos memory; provenance kept.
{{ config(**partition_replace_config()) }}

with

jobs as (
    select * from {{ ref('int_jobs_deduplicated') }}
    where {{ partition_window() }}
),

final as (
    select
        cast({{ surrogate_key(['cluster_name', 'job_id']) }} as {{ dbt.type_string() }}) as job_key,
        cast(job_id as {{ dbt.type_string() }}) as job_id,
        cast({{ surrogate_key(['cluster_name']) }} as {{ dbt.type_string() }}) as cluster_key,
        cast({{ surrogate_key(['cluster_name', 'user_name']) }} as {{ dbt.type_string() }}) as user_key,
        cast({{ surrogate_key(['job_type']) }} as {{ dbt.type_string() }}) as job_type_key,
        cast({{ surrogate_key(['job_state']) }} as {{ dbt.type_string() }}) as job_state_key,
        {{ date_key('submit_time_utc') }} as submit_date_key,
        {{ time_of_day_key('submit_time_utc') }} as submit_time_of_day_key,
        cast(submit_time_utc as {{ dbt.type_timestamp() }}) as submit_time_utc,
        cast(start_time_utc as {{ dbt.type_timestamp() }}) as start_time_utc,
        cast(end_time_utc as {{ dbt.type_timestamp() }}) as end_time_utc,
        cast(utc_offset as {{ dbt.type_string() }}) as utc_offset,
        cast(queue_s as {{ type_double() }}) as queue_s,
        cast(reported_queue_s as {{ type_double() }}) as reported_queue_s,
        cast(run_s as {{ type_double() }}) as run_s,
        cast(reported_duration_s as {{ type_double() }}) as reported_duration_s,
        cast(duration_rule as {{ dbt.type_string() }}) as duration_rule,
        cast(run_gpu_s as {{ type_double() }}) as run_gpu_s,
        cast(reported_gpu_s as {{ type_double() }}) as reported_gpu_s,
        cast(reported_gpu_time_s as {{ type_double() }}) as reported_gpu_time_s,
        cast(node_num as {{ dbt.type_bigint() }}) as node_num,
        cast(gpu_num as {{ type_double() }}) as gpu_num,
        cast(cpu_num as {{ type_double() }}) as cpu_num,
        cast(coalesce(gpu_num, 0) > 0 as {{ dbt.type_boolean() }}) as is_gpu_job,
        cast(mem_per_pod_gb as {{ type_double() }}) as mem_per_pod_gb,
        cast(shared_mem_per_pod as {{ type_double() }}) as shared_mem_per_pod,
        cast(source_state as {{ dbt.type_string() }}) as source_state,
        cast(duplicate_rows as {{ dbt.type_bigint() }}) as duplicate_rows,
        cast(_source_file as {{ dbt.type_string() }}) as _source_file,
        cast(_row_number as {{ dbt.type_bigint() }}) as _row_number,
        cast(_data_origin as {{ dbt.type_string() }}) as _data_origin,
        cast(_partition as {{ dbt.type_string() }}) as _partition
    from jobs
)

select * from final
