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

{{ gpu_job_shares('states', 'job_state_key', ['state_group']) }},

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
