-- One row per cluster, job type and state group (completed, cancelled, failed, other) over GPU jobs: the
-- group's share of the type's GPU jobs by count and by GPU time (reported: the file's duration x GPUs, as
-- the notebook; run: (end - start) x GPUs). The notebook's final-state figure per type.
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

states as (
    select * from {{ ref('dim_job_state') }}
),

grouped as (
    select
        clusters.cluster_name,
        job_types.job_type,
        states.state_group,
        count(*) as gpu_jobs,
        sum(jobs.reported_gpu_s) as reported_gpu_s,
        sum(jobs.run_gpu_s) as run_gpu_s,
        {{ count_where("jobs._data_origin = 'real'") }} as real_jobs,
        {{ count_where("jobs._data_origin = 'synthetic'") }} as synthetic_jobs
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    inner join job_types on jobs.job_type_key = job_types.job_type_key
    inner join states on jobs.job_state_key = states.job_state_key
    where jobs.is_gpu_job
    group by clusters.cluster_name, job_types.job_type, states.state_group
),

final as (
    select
        cluster_name,
        job_type,
        state_group,
        cast(gpu_jobs as {{ dbt.type_bigint() }}) as gpu_jobs,
        cast(reported_gpu_s as {{ type_double() }}) as reported_gpu_s,
        cast(run_gpu_s as {{ type_double() }}) as run_gpu_s,
        cast(gpu_jobs as {{ type_double() }})
        / sum(gpu_jobs) over (partition by cluster_name, job_type) as share_by_count,
        reported_gpu_s / nullif(sum(reported_gpu_s) over (partition by cluster_name, job_type), 0)
            as share_by_reported_gpu_time,
        run_gpu_s / nullif(sum(run_gpu_s) over (partition by cluster_name, job_type), 0)
            as share_by_run_gpu_time,
        cast(real_jobs as {{ dbt.type_bigint() }}) as real_jobs,
        cast(synthetic_jobs as {{ dbt.type_bigint() }}) as synthetic_jobs,
        {{ data_origin_label('real_jobs', 'synthetic_jobs') }} as data_origin
    from grouped
)

select * from final
