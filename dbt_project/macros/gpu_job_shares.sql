{#-
  Two CTEs for an analysis model: grouped, the GPU jobs per cluster and per `columns` of the dimension CTE
  `dimension` (joined to the jobs on `key`), with their count and reported / run GPU seconds; and shares,
  those with each one's share of its cluster by count and by both GPU times. `jobs` and `clusters` are the
  model's import CTEs of fct_job and dim_cluster.
-#}
{% macro gpu_job_shares(dimension, key, columns) -%}
    {%- set group_columns = ['clusters.cluster_name'] -%}
    {%- for column in columns -%}
        {%- do group_columns.append(dimension ~ '.' ~ column) -%}
    {%- endfor -%}
grouped as (
    select
        {{ group_columns | join(',\n        ') }},
        count(*) as gpu_jobs,
        sum(jobs.reported_gpu_s) as reported_gpu_s,
        sum(jobs.run_gpu_s) as run_gpu_s
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    inner join {{ dimension }} on jobs.{{ key }} = {{ dimension }}.{{ key }}
    where jobs.is_gpu_job
    group by {{ group_columns | join(', ') }}
),

shares as (
    select
        grouped.*,
        cast(grouped.gpu_jobs as {{ type_double() }})
        / sum(grouped.gpu_jobs) over (partition by grouped.cluster_name) as share_by_count,
        grouped.reported_gpu_s / nullif(sum(grouped.reported_gpu_s) over (partition by grouped.cluster_name), 0)
            as share_by_reported_gpu_time,
        grouped.run_gpu_s / nullif(sum(grouped.run_gpu_s) over (partition by grouped.cluster_name), 0)
            as share_by_run_gpu_time
    from grouped
)
{%- endmacro %}
