-- Grain: one row per BurstGPT request line of files 1-3, exact duplicates included (they are real
-- requests). The without-fails twins are not here: their counts are `not is_failed` on these rows.
{{ config(**partition_replace_config()) }}

with

requests as (
    select * from {{ ref('int_requests_enriched') }}
    where {{ partition_window() }}
),

final as (
    select
        cast({{ surrogate_key(['_source_file', '_row_number']) }} as {{ dbt.type_string() }}) as request_key,
        cast({{ surrogate_key(['model_name']) }} as {{ dbt.type_string() }}) as model_key,
        cast({{ surrogate_key(['log_type']) }} as {{ dbt.type_string() }}) as log_type_key,
        {{ date_key('request_local_date') }} as request_local_date_key,
        cast(second_of_day as {{ dbt.type_int() }}) as request_local_time_of_day_key,
        cast(timestamp_s as {{ type_double() }}) as timestamp_s,
        cast(day_index as {{ dbt.type_bigint() }}) as day_index,
        cast(second_of_day as {{ dbt.type_int() }}) as second_of_day,
        cast(hour_of_day as {{ dbt.type_int() }}) as hour_of_day,
        cast(hour_index as {{ dbt.type_bigint() }}) as hour_index,
        cast(relative_weekday as {{ dbt.type_int() }}) as relative_weekday,
        cast(request_time_utc as {{ dbt.type_timestamp() }}) as request_time_utc,
        cast(session_id as {{ dbt.type_string() }}) as session_id,
        cast(elapsed_s as {{ type_double() }}) as elapsed_s,
        cast(request_tokens as {{ dbt.type_bigint() }}) as request_tokens,
        cast(response_tokens as {{ dbt.type_bigint() }}) as response_tokens,
        cast(total_tokens as {{ dbt.type_bigint() }}) as total_tokens,
        cast(is_failed as {{ dbt.type_boolean() }}) as is_failed,
        cast(file_number as {{ dbt.type_int() }}) as file_number,
        cast(release as {{ dbt.type_string() }}) as release,
        cast(_source_file as {{ dbt.type_string() }}) as _source_file,
        cast(_row_number as {{ dbt.type_bigint() }}) as _row_number,
        cast(_data_origin as {{ dbt.type_string() }}) as _data_origin,
        cast(_partition as {{ dbt.type_string() }}) as _partition
    from requests
)

select * from final
