{#-
  One row per BurstGPT request line of files 1-3 (the facts) that passed validation; exact
  duplicates are separate requests and stay. timestamp_s counts seconds from 00:00 of day 0 in UTC+8; a
  UTC calendar timestamp exists only when var burstgpt_start_date is set.
  (Shared by stg_burstgpt__requests and stg_burstgpt__requests_without_fails.)
-#}
{% macro stg_burstgpt_requests(family) -%}
with

{{ passed_rows(family) }},

final as (
    select
        timestamp_s,
        cast(floor(timestamp_s / 86400) as {{ dbt.type_bigint() }}) as day_index,
        cast(floor(timestamp_s) - floor(timestamp_s / 86400) * 86400 as {{ dbt.type_int() }}) as second_of_day,
        {{ burstgpt_utc_timestamp('timestamp_s') }} as request_time_utc,
        session_id,
        elapsed_time as elapsed_s,
        model as model_name,
        log_type,
        request_tokens,
        response_tokens,
        total_tokens,
        _source_file,
        _row_number,
        _loaded_at,
        _data_origin,
        _partition
    from passed
)

select * from final
{%- endmacro %}
