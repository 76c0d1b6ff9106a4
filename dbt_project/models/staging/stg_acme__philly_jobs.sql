-- One row per Philly job line that passed validation (previous work); see macros/stg_previous_work.sql.
{{ stg_previous_work('acme__philly_jobs', 'philly') }}
