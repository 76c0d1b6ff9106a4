-- One row per cluster and final job state (all jobs and GPU jobs), with the state's paper group and the
-- published count where one exists (Kalos, all jobs).
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

published as (
    select * from {{ ref('published_numbers') }}
    where measure = 'jobs_by_state'
),

counts as (
    select
        clusters.cluster_name,
        states.job_state,
        states.state_group,
        states.is_documented,
        count(*) as jobs,
        {{ count_where("jobs.is_gpu_job") }} as gpu_jobs
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    inner join states on jobs.job_state_key = states.job_state_key
    group by clusters.cluster_name, states.job_state, states.state_group, states.is_documented
),

final as (
    select
        counts.cluster_name,
        counts.job_state,
        counts.state_group,
        counts.is_documented,
        counts.jobs,
        counts.gpu_jobs,
        published.published_value as published_jobs
    from counts
    left join published
        on counts.cluster_name = published.scope and counts.job_state = published.subject
)

select * from final
