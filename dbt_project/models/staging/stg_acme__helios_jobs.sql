-- One row per Helios job line that passed validation (previous work); see macros/stg_previous_work.sql.
{{ stg_previous_work('acme__helios_jobs', 'helios') }}
