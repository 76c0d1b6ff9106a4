-- One row per Helios job line that passed validation (previous work), in the shared job shape; states as
-- written (Slurm's, like Seren's). Header-driven columns and times written as text: macros/job_columns.sql.
with

{{ passed_rows('acme__helios_jobs') }},

final as (
    select
        'helios' as cluster_name,
        coalesce(state, status) as job_state,
        coalesce(state, status) as source_state,
        {{ previous_work_job_columns(source('raw', 'acme__helios_jobs')) }}
    from passed
)

select * from final
