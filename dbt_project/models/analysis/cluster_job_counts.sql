-- One row per cluster: jobs, GPU jobs and CPU-only jobs in the warehouse, how many follow each duration
-- rule, and the published counts beside them (the released files' row counts, and cluster_summary.csv).
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

published as (
    select * from {{ ref('published_numbers') }}
),

counts as (
    select
        cluster_key,
        count(*) as jobs,
        {{ count_where("is_gpu_job") }} as gpu_jobs,
        {{ count_where("not is_gpu_job") }} as cpu_jobs,
        cast(sum(duplicate_rows) as {{ dbt.type_bigint() }}) as duplicate_job_lines,
        {{ count_where("duration_rule = 'end_minus_start'") }} as end_minus_start_jobs,
        {{ count_where("duration_rule = 'end_minus_submit'") }} as end_minus_submit_jobs,
        {{ count_where("duration_rule = 'neither'") }} as neither_rule_jobs,
        {{ count_where("duration_rule = 'unknown'") }} as unknown_rule_jobs,
        {{ count_where("_data_origin = 'real'") }} as real_jobs,
        {{ count_where("_data_origin = 'synthetic'") }} as synthetic_jobs
    from jobs
    group by cluster_key
),

final as (
    select
        clusters.cluster_name,
        coalesce(counts.jobs, 0) as jobs,
        coalesce(counts.gpu_jobs, 0) as gpu_jobs,
        coalesce(counts.cpu_jobs, 0) as cpu_jobs,
        coalesce(counts.duplicate_job_lines, 0) as duplicate_job_lines,
        coalesce(counts.end_minus_start_jobs, 0) as end_minus_start_jobs,
        coalesce(counts.end_minus_submit_jobs, 0) as end_minus_submit_jobs,
        coalesce(counts.neither_rule_jobs, 0) as neither_rule_jobs,
        coalesce(counts.unknown_rule_jobs, 0) as unknown_rule_jobs,
        coalesce(counts.real_jobs, 0) as real_jobs,
        coalesce(counts.synthetic_jobs, 0) as synthetic_jobs,
        published_jobs.published_value as published_jobs_in_file,
        published_gpu_jobs.published_value as published_gpu_jobs_in_file,
        summary.jobs as summary_jobs,
        summary.gpu_jobs as summary_gpu_jobs,
        summary.cpu_jobs as summary_cpu_jobs
    from clusters
    left join counts on clusters.cluster_key = counts.cluster_key
    left join summary on clusters.cluster_name = summary.cluster_name
    {{ published_join('published_jobs', 'jobs', 'clusters.cluster_name') }}
    {{ published_join('published_gpu_jobs', 'gpu_jobs', 'clusters.cluster_name') }}
    where clusters.cluster_key != {{ unknown_key() }}
)

select * from final
