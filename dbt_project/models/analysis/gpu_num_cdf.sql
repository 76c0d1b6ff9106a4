-- One row per cluster and GPU count g = 0..1024: the share of GPU jobs requesting at most g GPUs, and the
-- share of GPU time (reported: duration x GPUs) those jobs use.
with

jobs as (
    select * from {{ ref('fct_job') }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

numbers as (
    {{ dbt.generate_series(1025) }}
),

grid as (
    select generated_number - 1 as gpu_num_at_most
    from numbers
),

by_gpu_num as (
    select
        clusters.cluster_name,
        jobs.gpu_num,
        count(*) as gpu_jobs,
        sum(jobs.reported_gpu_s) as reported_gpu_s
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    where jobs.is_gpu_job
    group by clusters.cluster_name, jobs.gpu_num
),

totals as (
    select
        cluster_name,
        cast(sum(gpu_jobs) as {{ dbt.type_bigint() }}) as gpu_jobs,
        sum(reported_gpu_s) as reported_gpu_s
    from by_gpu_num
    group by cluster_name
),

cumulative as (
    select
        by_gpu_num.cluster_name,
        grid.gpu_num_at_most,
        cast(
            sum(case when by_gpu_num.gpu_num <= grid.gpu_num_at_most then by_gpu_num.gpu_jobs else 0 end)
            as {{ dbt.type_bigint() }}
        ) as gpu_jobs_at_or_below,
        sum(case when by_gpu_num.gpu_num <= grid.gpu_num_at_most then by_gpu_num.reported_gpu_s else 0 end)
            as reported_gpu_s_at_or_below
    from by_gpu_num
    cross join grid
    group by by_gpu_num.cluster_name, grid.gpu_num_at_most
),

final as (
    select
        cumulative.cluster_name,
        cast(cumulative.gpu_num_at_most as {{ dbt.type_int() }}) as gpu_num_at_most,
        cumulative.gpu_jobs_at_or_below,
        cast(cumulative.gpu_jobs_at_or_below as {{ type_double() }}) / totals.gpu_jobs as share_of_jobs,
        cumulative.reported_gpu_s_at_or_below / nullif(totals.reported_gpu_s, 0) as share_of_gpu_time
    from cumulative
    inner join totals on cumulative.cluster_name = totals.cluster_name
)

select * from final
