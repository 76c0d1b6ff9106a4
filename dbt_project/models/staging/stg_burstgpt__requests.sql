-- One row per BurstGPT request line of files 1-3 (the facts) that passed validation; exact duplicates are
-- separate requests and stay. Columns: see macros/staging_columns.sql.
with

{{ passed_rows('burstgpt__requests') }},

final as (
    select {{ burstgpt_request_columns() }}
    from passed
)

select * from final
