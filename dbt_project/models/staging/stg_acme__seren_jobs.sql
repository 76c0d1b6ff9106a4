-- One row per Seren job line that passed validation, in the shared job shape (macros/job_columns.sql).
-- Times in UTC (the file writes UTC+8); the file has no memory columns.
with

{{ passed_rows('acme__seren_jobs') }},

final as (
    select
        'seren' as cluster_name,
        cast(null as {{ type_double() }}) as mem_per_pod_gb,
        cast(null as {{ type_double() }}) as shared_mem_per_pod,
        {{ acme_job_columns() }}
    from passed
)

select * from final
