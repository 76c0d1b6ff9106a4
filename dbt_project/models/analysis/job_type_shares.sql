-- One row per cluster and job type over GPU jobs: share by count and by GPU time (reported and run), with
-- the shares the paper's figures publish beside them.
with

jobs as (
    select * from {{ ref('fct_job') }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

job_types as (
    select * from {{ ref('dim_job_type') }}
),

published as (
    select * from {{ ref('published_numbers') }}
),

grouped as (
    select
        clusters.cluster_name,
        job_types.job_type,
        job_types.is_documented,
        count(*) as gpu_jobs,
        sum(jobs.reported_gpu_s) as reported_gpu_s,
        sum(jobs.run_gpu_s) as run_gpu_s
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    inner join job_types on jobs.job_type_key = job_types.job_type_key
    where jobs.is_gpu_job
    group by clusters.cluster_name, job_types.job_type, job_types.is_documented
),

shares as (
    select
        cluster_name,
        job_type,
        is_documented,
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
        published_count.published_value as published_share_by_count,
        published_gpu_time.published_value as published_share_by_gpu_time
    from shares
    left join published as published_count
        on
            published_count.measure = 'gpu_job_share_by_type'
            and shares.cluster_name = published_count.scope
            and shares.job_type = published_count.subject
    left join published as published_gpu_time
        on
            published_gpu_time.measure = 'gpu_time_share_by_type'
            and shares.cluster_name = published_gpu_time.scope
            and shares.job_type = published_gpu_time.subject
)

select * from final
