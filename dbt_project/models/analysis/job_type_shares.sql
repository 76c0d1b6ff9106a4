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

{{ gpu_job_shares('job_types', 'job_type_key', ['job_type', 'is_documented']) }},

final as (
    select
        shares.*,
        published_count.published_value as published_share_by_count,
        published_gpu_time.published_value as published_share_by_gpu_time
    from shares
    {{ published_join('published_count', 'gpu_job_share_by_type', 'shares.cluster_name', 'shares.job_type') }}
    {{ published_join('published_gpu_time', 'gpu_time_share_by_type', 'shares.cluster_name', 'shares.job_type') }}
)

select * from final
