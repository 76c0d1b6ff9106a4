-- One row per Seren job line that passed validation. Times in UTC (the file writes UTC+8).
with

{{ passed_rows('acme__seren_jobs') }},

final as (
    select
        'seren' as cluster_name,
        cast(job_id as {{ dbt.type_string() }}) as job_id,
        user as user_name,
        type as job_type,
        state as job_state,
        node_num,
        gpu_num,
        cpu_num,
        submit_time as submit_time_utc,
        start_time as start_time_utc,
        end_time as end_time_utc,
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
