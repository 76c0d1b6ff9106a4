-- One row per cluster and duration measure over GPU jobs: run_s (end - start), reported_duration_s (the
-- file's duration), queue_s (start - submit) and reported_queue_s (the file's queue): percentiles, mean,
-- max, with cluster_summary.csv's published median / mean / max beside them.
{%- set fractions = [0.25, 0.5, 0.75, 0.9, 0.99] %}
with

jobs as (
    select * from {{ ref('fct_job') }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

summary as (
    select * from {{ ref('stg_acme__cluster_summary') }}
),

gpu_jobs as (
    select
        clusters.cluster_name,
        jobs.run_s,
        jobs.reported_duration_s,
        jobs.queue_s,
        jobs.reported_queue_s
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    where jobs.is_gpu_job
),

measures as (
    {%- for measure in ['run_s', 'reported_duration_s', 'queue_s', 'reported_queue_s'] %}
    select
        cluster_name,
        '{{ measure }}' as measure,
        {{ measure }} as value_s
    from gpu_jobs
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
),

-- One percentile state for all fractions (an exact percentile holds every value of its group).
distributions as (
    select
        cluster_name,
        measure,
        count(value_s) as gpu_jobs,
        {{ percentiles_cont('value_s', fractions) }} as value_percentiles,
        avg(value_s) as mean_s,
        max(value_s) as max_s
    from measures
    group by cluster_name, measure
),

percentiles as (
    select
        cluster_name,
        measure,
        gpu_jobs,
        {%- for fraction in fractions %}
        {{ array_at('value_percentiles', loop.index) }} as p{{ (fraction * 100) | int }}_s,
        {%- endfor %}
        mean_s,
        max_s
    from distributions
),

final as (
    select
        percentiles.*,
        case
            when percentiles.measure in ('run_s', 'reported_duration_s') then summary.median_run_time_gpu_s
            else summary.median_queue_time_gpu_s
        end as published_median_s,
        case
            when percentiles.measure in ('run_s', 'reported_duration_s') then summary.avg_run_time_gpu_s
            else summary.avg_queue_time_gpu_s
        end as published_mean_s,
        case
            when percentiles.measure in ('run_s', 'reported_duration_s') then summary.max_run_time_gpu_s
        end as published_max_s
    from percentiles
    left join summary on percentiles.cluster_name = summary.cluster_name
)

select * from final
