-- One row per cluster, duration measure (run_s, reported_duration_s, queue_s) and grid point of the
-- upstream notebook (threshold 2**i seconds, i = 0..21): the share of GPU jobs whose value is at most
-- the threshold.
with

jobs as (
    select * from {{ ref('fct_job') }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

numbers as (
    {{ dbt.generate_series(22) }}
),

grid as (
    select
        generated_number - 1 as grid_index,
        power(2, generated_number - 1) as threshold_s
    from numbers
),

gpu_jobs as (
    select
        clusters.cluster_name,
        jobs.run_s,
        jobs.reported_duration_s,
        jobs.queue_s
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    where jobs.is_gpu_job
),

measures as (
    {%- for measure in ['run_s', 'reported_duration_s', 'queue_s'] %}
    select
        cluster_name,
        '{{ measure }}' as measure,
        {{ measure }} as value_s
    from gpu_jobs
    where {{ measure }} is not null
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
),

final as (
    select
        measures.cluster_name,
        measures.measure,
        cast(grid.grid_index as {{ dbt.type_int() }}) as grid_index,
        cast(grid.threshold_s as {{ type_double() }}) as threshold_s,
        count(*) as gpu_jobs,
        {{ count_where("measures.value_s <= grid.threshold_s") }} as gpu_jobs_at_or_below,
        cast({{ count_where("measures.value_s <= grid.threshold_s") }} as {{ type_double() }})
        / count(*) as cumulative_share
    from measures
    cross join grid
    group by measures.cluster_name, measures.measure, grid.grid_index, grid.threshold_s
)

select * from final
