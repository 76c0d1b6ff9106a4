-- One row per Kalos job line that passed validation, in the shared job shape (macros/job_columns.sql),
-- with Kalos's memory columns and its fail and stop times. Times in UTC (the file writes +00:00).
with

{{ passed_rows('acme__kalos_jobs') }},

final as (
    select
        'kalos' as cluster_name,
        mem_per_pod_gb,
        shared_mem_per_pod,
        fail_time as fail_time_utc,
        stop_time as stop_time_utc,
        {{ acme_job_columns() }}
    from passed
)

select * from final
