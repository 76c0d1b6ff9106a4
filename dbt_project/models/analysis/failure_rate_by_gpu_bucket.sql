-- One row per cluster, job type and GPU-count bucket over GPU jobs: buckets double like the notebook's GPU
-- axis ((0, 1], (1, 2], (2, 4], ..., (512, 1024], then > 1024; PAI's fractional counts fall in (0, 1]).
-- Jobs per final-state group, the failure rate (failed = FAILED, TIMEOUT, NODE_FAIL) and the share of the
-- bucket's GPU time (reported) that failed jobs used.
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

buckets as (
    {%- for i in range(11) %}
    select
        {{ i }} as gpu_bucket_index,
        '({{ 0 if i == 0 else 2 ** (i - 1) }}, {{ 2 ** i }}]' as gpu_bucket,
        {{ 0 if i == 0 else 2 ** (i - 1) }} as gpu_num_above,
        {{ 2 ** i }} as gpu_num_at_most
    union all
    {%- endfor %}
    select
        11 as gpu_bucket_index,
        '> 1024' as gpu_bucket,
        1024 as gpu_num_above,
        null as gpu_num_at_most
),

gpu_jobs as (
    select
        clusters.cluster_name,
        job_types.job_type,
        states.state_group,
        jobs.gpu_num,
        jobs.reported_gpu_s,
        jobs._data_origin
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    inner join job_types on jobs.job_type_key = job_types.job_type_key
    inner join states on jobs.job_state_key = states.job_state_key
    where jobs.is_gpu_job
),

grouped as (
    select
        gpu_jobs.cluster_name,
        gpu_jobs.job_type,
        buckets.gpu_bucket_index,
        buckets.gpu_bucket,
        buckets.gpu_num_above,
        buckets.gpu_num_at_most,
        count(*) as gpu_jobs,
        {{ count_where("gpu_jobs.state_group = 'completed'") }} as completed_jobs,
        {{ count_where("gpu_jobs.state_group = 'cancelled'") }} as cancelled_jobs,
        {{ count_where("gpu_jobs.state_group = 'failed'") }} as failed_jobs,
        {{ count_where("gpu_jobs.state_group = 'other'") }} as other_jobs,
        sum(gpu_jobs.reported_gpu_s) as reported_gpu_s,
        sum(case when gpu_jobs.state_group = 'failed' then gpu_jobs.reported_gpu_s else 0 end)
            as failed_reported_gpu_s,
        {{ count_where("gpu_jobs._data_origin = 'real'") }} as real_jobs,
        {{ count_where("gpu_jobs._data_origin = 'synthetic'") }} as synthetic_jobs
    from gpu_jobs
    inner join buckets
        on
            gpu_jobs.gpu_num > buckets.gpu_num_above
            and (buckets.gpu_num_at_most is null or gpu_jobs.gpu_num <= buckets.gpu_num_at_most)
    group by
        gpu_jobs.cluster_name,
        gpu_jobs.job_type,
        buckets.gpu_bucket_index,
        buckets.gpu_bucket,
        buckets.gpu_num_above,
        buckets.gpu_num_at_most
),

final as (
    select
        cluster_name,
        job_type,
        cast(gpu_bucket_index as {{ dbt.type_int() }}) as gpu_bucket_index,
        cast(gpu_bucket as {{ dbt.type_string() }}) as gpu_bucket,
        cast(gpu_num_above as {{ type_double() }}) as gpu_num_above,
        cast(gpu_num_at_most as {{ type_double() }}) as gpu_num_at_most,
        cast(gpu_jobs as {{ dbt.type_bigint() }}) as gpu_jobs,
        cast(completed_jobs as {{ dbt.type_bigint() }}) as completed_jobs,
        cast(cancelled_jobs as {{ dbt.type_bigint() }}) as cancelled_jobs,
        cast(failed_jobs as {{ dbt.type_bigint() }}) as failed_jobs,
        cast(other_jobs as {{ dbt.type_bigint() }}) as other_jobs,
        cast(failed_jobs as {{ type_double() }}) / gpu_jobs as failure_rate,
        cast(failed_reported_gpu_s / nullif(reported_gpu_s, 0) as {{ type_double() }})
            as failed_share_of_gpu_time,
        cast(real_jobs as {{ dbt.type_bigint() }}) as real_jobs,
        cast(synthetic_jobs as {{ dbt.type_bigint() }}) as synthetic_jobs,
        {{ data_origin_label('real_jobs', 'synthetic_jobs') }} as data_origin
    from grouped
)

select * from final
