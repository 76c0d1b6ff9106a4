-- One row per job line of the five clusters (Seren, Kalos, Helios, Philly, PAI) in one shape, with both
-- duration readings (run_s = end - start; reported_duration_s = the file's duration) and the rule the
-- file's duration follows. Each staging model maps its file to the shared shape (states, PAI's plan
-- columns, ...); repeated job ids are still here (see int_jobs_deduplicated).
{%- set job_columns = [
    'cluster_name', 'job_id', 'user_name', 'job_type', 'job_state', 'source_state',
    'node_num', 'gpu_num', 'cpu_num', 'mem_per_pod_gb', 'shared_mem_per_pod',
    'submit_time_utc', 'start_time_utc', 'end_time_utc', 'utc_offset',
    'submit_offset_s', 'start_offset_s', 'end_offset_s',
    'reported_duration_s', 'reported_queue_s', 'reported_gpu_time_s',
    '_source_file', '_row_number', '_data_origin', '_partition',
] %}
with

unioned as (
    {{ union_columns([
        ref('stg_acme__seren_jobs'),
        ref('stg_acme__kalos_jobs'),
        ref('stg_acme__helios_jobs'),
        ref('stg_acme__philly_jobs'),
        ref('stg_acme__pai_jobs'),
    ], job_columns) }}
),

readings as (
    select
        *,
        -- from timestamps, or from seconds since the trace start where the file writes those (PAI)
        coalesce(
            cast(
                {{ dbt.datediff('start_time_utc', 'end_time_utc', 'second') }}
                as {{ type_double() }}
            ),
            end_offset_s - start_offset_s
        ) as run_s,
        coalesce(
            cast(
                {{ dbt.datediff('submit_time_utc', 'end_time_utc', 'second') }}
                as {{ type_double() }}
            ),
            end_offset_s - submit_offset_s
        ) as end_minus_submit_s,
        coalesce(
            cast(
                {{ dbt.datediff('submit_time_utc', 'start_time_utc', 'second') }}
                as {{ type_double() }}
            ),
            start_offset_s - submit_offset_s
        ) as queue_s
    from unioned
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
        case
            when reported_duration_s is null or run_s is null then 'unknown'
            when abs(reported_duration_s - run_s) <= 1 then 'end_minus_start'
            when abs(reported_duration_s - end_minus_submit_s) <= 1 then 'end_minus_submit'
            else 'neither'
        end as duration_rule,
        run_s * gpu_num as run_gpu_s,
        reported_duration_s * gpu_num as reported_gpu_s,
        reported_gpu_time_s,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from readings
)

select * from final
