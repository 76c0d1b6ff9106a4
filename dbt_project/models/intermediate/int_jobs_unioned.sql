-- One row per job line of the five clusters (Seren, Kalos, Helios, Philly, PAI) in one shape, with both
-- duration readings (run_s = end - start; reported_duration_s = the file's duration) and the rule the
-- file's duration follows. Differences mapped: PAI gpu/cpu = plan_gpu/plan_cpu / 100 (no plan_gpu: 0 GPUs),
-- queue = wait_time,
-- state from status ('Failed' -> FAILED, other statuses kept); Philly Pass/Failed/Killed ->
-- COMPLETED/FAILED/CANCELLED. Repeated job ids are still here (see int_jobs_deduplicated).
with

seren as (
    select * from {{ ref('stg_acme__seren_jobs') }}
),

kalos as (
    select * from {{ ref('stg_acme__kalos_jobs') }}
),

helios as (
    select * from {{ ref('stg_acme__helios_jobs') }}
),

philly as (
    select * from {{ ref('stg_acme__philly_jobs') }}
),

pai as (
    select * from {{ ref('stg_acme__pai_jobs') }}
),

acme_jobs as (
    select
        cluster_name,
        job_id,
        user_name,
        job_type,
        job_state,
        job_state as source_state,
        cast(node_num as {{ dbt.type_bigint() }}) as node_num,
        cast(gpu_num as {{ type_double() }}) as gpu_num,
        cast(cpu_num as {{ type_double() }}) as cpu_num,
        cast(null as {{ type_double() }}) as mem_per_pod_gb,
        cast(null as {{ type_double() }}) as shared_mem_per_pod,
        submit_time_utc,
        start_time_utc,
        end_time_utc,
        utc_offset,
        cast(null as {{ type_double() }}) as submit_offset_s,
        cast(null as {{ type_double() }}) as start_offset_s,
        cast(null as {{ type_double() }}) as end_offset_s,
        reported_duration_s,
        reported_queue_s,
        reported_gpu_time_s,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from seren

    union all

    select
        cluster_name,
        job_id,
        user_name,
        job_type,
        job_state,
        job_state as source_state,
        cast(node_num as {{ dbt.type_bigint() }}) as node_num,
        cast(gpu_num as {{ type_double() }}) as gpu_num,
        cast(cpu_num as {{ type_double() }}) as cpu_num,
        mem_per_pod_gb,
        shared_mem_per_pod,
        submit_time_utc,
        start_time_utc,
        end_time_utc,
        utc_offset,
        cast(null as {{ type_double() }}) as submit_offset_s,
        cast(null as {{ type_double() }}) as start_offset_s,
        cast(null as {{ type_double() }}) as end_offset_s,
        reported_duration_s,
        reported_queue_s,
        reported_gpu_time_s,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from kalos
),

previous_work_jobs as (
    select
        cluster_name,
        job_id,
        user_name,
        job_type,
        coalesce(source_state, source_status) as job_state,
        coalesce(source_state, source_status) as source_state,
        cast(node_num as {{ dbt.type_bigint() }}) as node_num,
        gpu_num,
        cpu_num,
        cast(null as {{ type_double() }}) as mem_per_pod_gb,
        cast(null as {{ type_double() }}) as shared_mem_per_pod,
        submit_time_utc,
        start_time_utc,
        end_time_utc,
        utc_offset,
        submit_offset_s,
        start_offset_s,
        end_offset_s,
        reported_duration_s,
        reported_queue_s,
        cast(null as {{ type_double() }}) as reported_gpu_time_s,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from helios

    union all

    select
        cluster_name,
        job_id,
        user_name,
        job_type,
        case coalesce(source_state, source_status)
            when 'Pass' then 'COMPLETED'
            when 'Failed' then 'FAILED'
            when 'Killed' then 'CANCELLED'
            else coalesce(source_state, source_status)
        end as job_state,
        coalesce(source_state, source_status) as source_state,
        cast(node_num as {{ dbt.type_bigint() }}) as node_num,
        gpu_num,
        cpu_num,
        cast(null as {{ type_double() }}) as mem_per_pod_gb,
        cast(null as {{ type_double() }}) as shared_mem_per_pod,
        submit_time_utc,
        start_time_utc,
        end_time_utc,
        utc_offset,
        submit_offset_s,
        start_offset_s,
        end_offset_s,
        reported_duration_s,
        reported_queue_s,
        cast(null as {{ type_double() }}) as reported_gpu_time_s,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from philly

    union all

    select
        cluster_name,
        job_id,
        user_name,
        job_type,
        case coalesce(source_status, source_state)
            when 'Failed' then 'FAILED'
            else coalesce(source_status, source_state)
        end as job_state,
        coalesce(source_status, source_state) as source_state,
        cast(node_num as {{ dbt.type_bigint() }}) as node_num,
        -- plan_gpu is empty on tasks without a GPU
        coalesce(plan_gpu / 100.0, gpu_num, 0) as gpu_num,
        coalesce(plan_cpu / 100.0, cpu_num) as cpu_num,
        cast(null as {{ type_double() }}) as mem_per_pod_gb,
        cast(null as {{ type_double() }}) as shared_mem_per_pod,
        submit_time_utc,
        start_time_utc,
        end_time_utc,
        utc_offset,
        submit_offset_s,
        start_offset_s,
        end_offset_s,
        reported_duration_s,
        coalesce(reported_wait_time_s, reported_queue_s) as reported_queue_s,
        cast(null as {{ type_double() }}) as reported_gpu_time_s,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from pai
),

unioned as (
    select * from acme_jobs
    union all
    select * from previous_work_jobs
),

readings as (
    select
        *,
        -- from timestamps, or from seconds since the trace start where the file writes those (PAI)
        coalesce(
            cast({{ dbt.datediff('start_time_utc', 'end_time_utc', 'second') }} as {{ type_double() }}),
            end_offset_s - start_offset_s
        ) as run_s,
        coalesce(
            cast({{ dbt.datediff('submit_time_utc', 'end_time_utc', 'second') }} as {{ type_double() }}),
            end_offset_s - submit_offset_s
        ) as end_minus_submit_s,
        coalesce(
            cast({{ dbt.datediff('submit_time_utc', 'start_time_utc', 'second') }} as {{ type_double() }}),
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
