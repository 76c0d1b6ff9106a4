-- One row per cluster and user with GPU jobs: GPU jobs, GPU-hours (reported: the file's duration x GPUs, as
-- the paper; run: (end - start) x GPUs), the user's rank by reported GPU-hours (ties by user name) and the
-- share of the cluster's GPU-hours used by the users ranked up to them (a Lorenz curve from the top).
with

jobs as (
    select * from {{ ref('fct_job') }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

users as (
    select * from {{ ref('dim_user') }}
),

per_user as (
    select
        clusters.cluster_name,
        users.user_name,
        count(*) as gpu_jobs,
        coalesce(sum(jobs.reported_gpu_s), 0) / 3600 as reported_gpu_hours,
        coalesce(sum(jobs.run_gpu_s), 0) / 3600 as run_gpu_hours,
        {{ count_where("jobs._data_origin = 'real'") }} as real_jobs,
        {{ count_where("jobs._data_origin = 'synthetic'") }} as synthetic_jobs
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    inner join users on jobs.user_key = users.user_key
    where jobs.is_gpu_job
    group by clusters.cluster_name, users.user_name
),

ranked as (
    select
        *,
        row_number() over (
            partition by cluster_name order by reported_gpu_hours desc, user_name asc
        ) as user_rank,
        count(*) over (partition by cluster_name) as cluster_users,
        sum(reported_gpu_hours) over (partition by cluster_name) as cluster_gpu_hours
    from per_user
),

cumulated as (
    select
        *,
        sum(reported_gpu_hours) over (
            partition by cluster_name order by user_rank rows between unbounded preceding and current row
        ) as gpu_hours_up_to_rank
    from ranked
),

final as (
    select
        cluster_name,
        user_name,
        cast(user_rank as {{ dbt.type_bigint() }}) as user_rank,
        cast(cluster_users as {{ dbt.type_bigint() }}) as cluster_users,
        cast(gpu_jobs as {{ dbt.type_bigint() }}) as gpu_jobs,
        cast(reported_gpu_hours as {{ type_double() }}) as reported_gpu_hours,
        cast(run_gpu_hours as {{ type_double() }}) as run_gpu_hours,
        cast(gpu_hours_up_to_rank as {{ type_double() }}) as gpu_hours_up_to_rank,
        cast(cluster_gpu_hours as {{ type_double() }}) as cluster_gpu_hours,
        cast(reported_gpu_hours / nullif(cluster_gpu_hours, 0) as {{ type_double() }}) as share_of_gpu_hours,
        cast(gpu_hours_up_to_rank / nullif(cluster_gpu_hours, 0) as {{ type_double() }})
            as cumulative_share_of_gpu_hours,
        cast(real_jobs as {{ dbt.type_bigint() }}) as real_jobs,
        cast(synthetic_jobs as {{ dbt.type_bigint() }}) as synthetic_jobs,
        {{ data_origin_label('real_jobs', 'synthetic_jobs') }} as data_origin
    from cumulated
)

select * from final
