-- One row per Kalos job line that passed validation. Times in UTC (the file writes +00:00).
with

{{ passed_rows('acme__kalos_jobs') }},

final as (
    select
        'kalos' as cluster_name,
        cast(job_id as {{ dbt.type_string() }}) as job_id,
        user as user_name,
        type as job_type,
        state as job_state,
        node_num,
        gpu_num,
        cpu_num,
        mem_per_pod_gb,
        shared_mem_per_pod,
        submit_time as submit_time_utc,
        start_time as start_time_utc,
        end_time as end_time_utc,
        fail_time as fail_time_utc,
        stop_time as stop_time_utc,
        submit_time_utc_offset as utc_offset,
        {{ utc_to_local('submit_time', 'submit_time_utc_offset') }} as submit_time_local,
        duration as reported_duration_s,
        queue as reported_queue_s,
        gpu_time as reported_gpu_time_s,
        _source_file,
        _row_number,
        _loaded_at,
        _data_origin,
        _partition
    from passed
)

select * from final
