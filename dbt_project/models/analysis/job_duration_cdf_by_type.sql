-- One row per cluster, job type, measure and grid point of the upstream notebook's per-type figure
-- (cdf_job_duration_queue): durations (reported_duration_s = the file's duration, as the notebook; run_s =
-- end - start) on 2**i s for i = 0..21, queueing delays (reported_queue_s = the file's queue, as the
-- notebook; queue_s = start - submit) on 2**i s for i = 0..15. The share of the type's GPU jobs with a
-- value at or below the threshold, over the jobs whose value is known (the notebook drops NaN).
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

numbers as (
    {{ dbt.generate_series(22) }}
),

gpu_jobs as (
    select
        clusters.cluster_name,
        job_types.job_type,
        jobs.reported_duration_s,
        jobs.run_s,
        jobs.reported_queue_s,
        jobs.queue_s,
        jobs._data_origin
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    inner join job_types on jobs.job_type_key = job_types.job_type_key
    where jobs.is_gpu_job
),

measures as (
    {%- for measure, grid_points in [('reported_duration_s', 22), ('run_s', 22), ('reported_queue_s', 16),
                                     ('queue_s', 16)] %}
    select
        cluster_name,
        job_type,
        '{{ measure }}' as measure,
        {{ grid_points }} as grid_points,
        {{ measure }} as value_s,
        _data_origin
    from gpu_jobs
    where {{ measure }} is not null
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
),

by_value as (
    select
        cluster_name,
        job_type,
        measure,
        grid_points,
        value_s,
        count(*) as gpu_jobs
    from measures
    group by cluster_name, job_type, measure, grid_points, value_s
),

totals as (
    select
        cluster_name,
        job_type,
        measure,
        count(*) as gpu_jobs,
        {{ count_where("_data_origin = 'real'") }} as real_jobs,
        {{ count_where("_data_origin = 'synthetic'") }} as synthetic_jobs
    from measures
    group by cluster_name, job_type, measure
),

grid as (
    select
        generated_number - 1 as grid_index,
        power(2, generated_number - 1) as threshold_s
    from numbers
),

cumulative as (
    select
        by_value.cluster_name,
        by_value.job_type,
        by_value.measure,
        grid.grid_index,
        grid.threshold_s,
        sum(case when by_value.value_s <= grid.threshold_s then by_value.gpu_jobs else 0 end)
            as gpu_jobs_at_or_below
    from by_value
    inner join grid on by_value.grid_points > grid.grid_index
    group by by_value.cluster_name, by_value.job_type, by_value.measure, grid.grid_index, grid.threshold_s
),

final as (
    select
        cumulative.cluster_name,
        cumulative.job_type,
        cumulative.measure,
        cast(cumulative.grid_index as {{ dbt.type_int() }}) as grid_index,
        cast(cumulative.threshold_s as {{ type_double() }}) as threshold_s,
        cast(totals.gpu_jobs as {{ dbt.type_bigint() }}) as gpu_jobs,
        cast(cumulative.gpu_jobs_at_or_below as {{ dbt.type_bigint() }}) as gpu_jobs_at_or_below,
        cast(cumulative.gpu_jobs_at_or_below as {{ type_double() }}) / totals.gpu_jobs as cumulative_share,
        cast(totals.real_jobs as {{ dbt.type_bigint() }}) as real_jobs,
        cast(totals.synthetic_jobs as {{ dbt.type_bigint() }}) as synthetic_jobs,
        {{ data_origin_label('totals.real_jobs', 'totals.synthetic_jobs') }} as data_origin
    from cumulative
    inner join totals
        on
            cumulative.cluster_name = totals.cluster_name
            and cumulative.job_type = totals.job_type
            and cumulative.measure = totals.measure
)

select * from final
