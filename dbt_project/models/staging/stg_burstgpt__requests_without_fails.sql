-- One row per request line of the without-fails twins (cross-file check and dimensions only; not in
-- fct_request). Columns: see macros/staging_columns.sql.
with

{{ passed_rows('burstgpt__requests_without_fails') }},

final as (
    select {{ burstgpt_request_columns() }}
    from passed
)

select * from final
