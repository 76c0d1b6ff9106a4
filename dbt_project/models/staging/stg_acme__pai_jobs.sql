-- One row per PAI job line that passed validation (previous work), in the shared job shape: state from
-- status ('Failed' -> FAILED, other statuses kept; source_state as written), GPUs and CPUs from the plan,
-- queue = wait_time; times are seconds since the trace start (*_offset_s). Header-driven columns and times
-- written as text: macros/job_columns.sql.
with

{{ passed_rows('acme__pai_jobs') }},

planned as (
    select
        *,
        -- plan_gpu/plan_cpu are percent of a GPU/CPU; plan_gpu is empty on tasks without a GPU
        coalesce(plan_gpu / 100.0, gpu_num, 0) as planned_gpu_num,
        coalesce(plan_cpu / 100.0, cpu_num) as planned_cpu_num,
        coalesce(wait_time, queue) as wait_s
    from passed
),

final as (
    select
        'pai' as cluster_name,
        case coalesce(status, state)
            when 'Failed' then 'FAILED'
            else coalesce(status, state)
        end as job_state,
        coalesce(status, state) as source_state,
        {{ previous_work_job_columns(
            source('raw', 'acme__pai_jobs'), gpu_num='planned_gpu_num', cpu_num='planned_cpu_num', queue='wait_s'
        ) }},
        plan_gpu,
        plan_cpu,
        wait_time as reported_wait_time_s
    from planned
)

select * from final
