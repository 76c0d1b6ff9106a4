-- One row per cluster and state group (completed, cancelled, failed, other) over GPU jobs: share by count
-- and by GPU time (reported: the file's duration x GPUs, as the paper; run: (end - start) x GPUs), with
-- cluster_summary.csv's published shares beside them.
with

jobs as (
    select * from {{ ref('fct_job') }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

states as (
    select * from {{ ref('dim_job_state') }}
),

summary as (
    select * from {{ ref('stg_acme__cluster_summary') }}
),

grouped as (
    select
        clusters.cluster_name,
        states.state_group,
        count(*) as gpu_jobs,
        sum(jobs.reported_gpu_s) as reported_gpu_s,
        sum(jobs.run_gpu_s) as run_gpu_s
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    inner join states on jobs.job_state_key = states.job_state_key
    where jobs.is_gpu_job
    group by clusters.cluster_name, states.state_group
),

shares as (
    select
        cluster_name,
        state_group,
        gpu_jobs,
        reported_gpu_s,
        run_gpu_s,
        cast(gpu_jobs as {{ type_double() }})
        / sum(gpu_jobs) over (partition by cluster_name) as share_by_count,
        reported_gpu_s / nullif(sum(reported_gpu_s) over (partition by cluster_name), 0)
            as share_by_reported_gpu_time,
        run_gpu_s / nullif(sum(run_gpu_s) over (partition by cluster_name), 0) as share_by_run_gpu_time
    from grouped
),

final as (
    select
        shares.*,
        case shares.state_group
            when 'completed' then summary.completed_share_gpu_jobs
            when 'cancelled' then summary.cancelled_share_gpu_jobs
            when 'failed' then summary.failed_share_gpu_jobs
        end as published_share_by_count,
        case shares.state_group
            when 'completed' then summary.completed_share_gpu_time
            when 'cancelled' then summary.cancelled_share_gpu_time
            when 'failed' then summary.failed_share_gpu_time
        end as published_share_by_gpu_time
    from shares
    left join summary on shares.cluster_name = summary.cluster_name
)

select * from final
