-- One row per cluster, job type and population: the box plot of GPUs requested per job (the notebook's
-- box_gpu_num): quartiles (interpolated, as pandas), whiskers at the furthest job within 1.5 x IQR of the
-- box (as seaborn), jobs beyond them, min, max and mean. Population gpu_jobs (gpu_num > 0) is what the other
-- marts count; all_jobs is the notebook's own box, whose data includes CPU-only jobs (gpu_num 0).
{%- set fractions = [0.25, 0.5, 0.75] %}
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

typed as (
    select
        clusters.cluster_name,
        job_types.job_type,
        jobs.is_gpu_job,
        jobs.gpu_num,
        jobs._data_origin
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    inner join job_types on jobs.job_type_key = job_types.job_type_key
    where jobs.gpu_num is not null
),

populations as (
    select
        cluster_name,
        job_type,
        'all_jobs' as population,
        gpu_num,
        _data_origin
    from typed

    union all

    select
        cluster_name,
        job_type,
        'gpu_jobs' as population,
        gpu_num,
        _data_origin
    from typed
    where is_gpu_job
),

stats as (
    select
        cluster_name,
        job_type,
        population,
        count(*) as jobs,
        {{ percentiles_cont('gpu_num', fractions) }} as quartiles,
        min(gpu_num) as min_gpu_num,
        max(gpu_num) as max_gpu_num,
        avg(gpu_num) as mean_gpu_num,
        {{ count_where("_data_origin = 'real'") }} as real_jobs,
        {{ count_where("_data_origin = 'synthetic'") }} as synthetic_jobs
    from populations
    group by cluster_name, job_type, population
),

boxes as (
    select
        cluster_name,
        job_type,
        population,
        jobs,
        {{ array_at('quartiles', 1) }} as p25_gpu_num,
        {{ array_at('quartiles', 2) }} as p50_gpu_num,
        {{ array_at('quartiles', 3) }} as p75_gpu_num,
        min_gpu_num,
        max_gpu_num,
        mean_gpu_num,
        real_jobs,
        synthetic_jobs
    from stats
),

whiskers as (
    select
        boxes.cluster_name,
        boxes.job_type,
        boxes.population,
        min(case
            when populations.gpu_num >= boxes.p25_gpu_num - 1.5 * (boxes.p75_gpu_num - boxes.p25_gpu_num)
                then populations.gpu_num
        end) as lower_whisker_gpu_num,
        max(case
            when populations.gpu_num <= boxes.p75_gpu_num + 1.5 * (boxes.p75_gpu_num - boxes.p25_gpu_num)
                then populations.gpu_num
        end) as upper_whisker_gpu_num
    from boxes
    inner join populations
        on
            boxes.cluster_name = populations.cluster_name
            and boxes.job_type = populations.job_type
            and boxes.population = populations.population
    group by boxes.cluster_name, boxes.job_type, boxes.population
),

final as (
    select
        boxes.cluster_name,
        boxes.job_type,
        cast(boxes.population as {{ dbt.type_string() }}) as population,
        cast(boxes.jobs as {{ dbt.type_bigint() }}) as jobs,
        cast(boxes.min_gpu_num as {{ type_double() }}) as min_gpu_num,
        cast(whiskers.lower_whisker_gpu_num as {{ type_double() }}) as lower_whisker_gpu_num,
        cast(boxes.p25_gpu_num as {{ type_double() }}) as p25_gpu_num,
        cast(boxes.p50_gpu_num as {{ type_double() }}) as p50_gpu_num,
        cast(boxes.p75_gpu_num as {{ type_double() }}) as p75_gpu_num,
        cast(whiskers.upper_whisker_gpu_num as {{ type_double() }}) as upper_whisker_gpu_num,
        cast(boxes.max_gpu_num as {{ type_double() }}) as max_gpu_num,
        cast(boxes.mean_gpu_num as {{ type_double() }}) as mean_gpu_num,
        cast(boxes.real_jobs as {{ dbt.type_bigint() }}) as real_jobs,
        cast(boxes.synthetic_jobs as {{ dbt.type_bigint() }}) as synthetic_jobs,
        {{ data_origin_label('boxes.real_jobs', 'boxes.synthetic_jobs') }} as data_origin
    from boxes
    inner join whiskers
        on
            boxes.cluster_name = whiskers.cluster_name
            and boxes.job_type = whiskers.job_type
            and boxes.population = whiskers.population
)

select * from final
