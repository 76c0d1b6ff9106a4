-- One row per Philly job line that passed validation (previous work), in the shared job shape: states
-- Pass/Failed/Killed -> COMPLETED/FAILED/CANCELLED (source_state as written). Header-driven columns and
-- times written as text: macros/job_columns.sql.
with

{{ passed_rows('acme__philly_jobs') }},

final as (
    select
        'philly' as cluster_name,
        case coalesce(state, status)
            when 'Pass' then 'COMPLETED'
            when 'Failed' then 'FAILED'
            when 'Killed' then 'CANCELLED'
            else coalesce(state, status)
        end as job_state,
        coalesce(state, status) as source_state,
        {{ previous_work_job_columns(source('raw', 'acme__philly_jobs')) }}
    from passed
)

select * from final
