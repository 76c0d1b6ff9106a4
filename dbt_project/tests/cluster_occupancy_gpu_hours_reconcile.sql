-- Fails on every cluster whose GPU-hours run in cluster_occupancy_hourly (summed over its hours) differ by
-- more than 1e-6 h from the same GPU-hours counted job by job in fct_job: run_gpu_s of every GPU job that
-- started and ended, plus GPUs x (end of the last hour - start) for a job still running at the end.
with

occupancy as (
    select * from {{ ref('cluster_occupancy_hourly') }}
),

jobs as (
    select * from {{ ref('fct_job') }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

from_hours as (
    select
        cluster_name,
        sum(running_gpu_hours) as gpu_hours,
        (max(hour_index) + 1) * 3600 as spine_end_s
    from occupancy
    group by cluster_name
),

from_jobs as (
    select
        clusters.cluster_name,
        jobs.run_gpu_s,
        jobs.gpu_num,
        jobs.end_time_utc is null as is_open,
        {{ epoch_seconds('jobs.start_time_utc') }} as start_s
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    where jobs.is_gpu_job and jobs.submit_time_utc is not null and jobs.start_time_utc is not null
),

compared as (
    select
        from_hours.cluster_name,
        from_hours.gpu_hours,
        sum(
            case
                when from_jobs.is_open then from_jobs.gpu_num * (from_hours.spine_end_s - from_jobs.start_s)
                else from_jobs.run_gpu_s
            end
        ) / 3600 as job_gpu_hours
    from from_hours
    inner join from_jobs on from_hours.cluster_name = from_jobs.cluster_name
    group by from_hours.cluster_name, from_hours.gpu_hours
),

final as (
    select * from compared
    where abs(gpu_hours - job_gpu_hours) > 1e-6
)

select * from final
