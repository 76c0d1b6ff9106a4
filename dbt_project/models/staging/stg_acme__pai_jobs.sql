-- One row per PAI job line that passed validation (previous work); see macros/stg_previous_work.sql.
{{ stg_previous_work('acme__pai_jobs', 'pai') }}
