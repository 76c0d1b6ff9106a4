-- One row per BurstGPT request of files 1-3 (exact duplicates stay): failure flag, file and release,
-- and the trace clock's day index, hour, second of day and relative weekday (day_index % 7: weekday
-- relative to the unpublished day 0). Calendar time only when var burstgpt_start_date is set.
with

requests as (
    select * from {{ ref('stg_burstgpt__requests') }}
),

located as (
    select
        *,
        {{ dbt.split_part('_source_file', "'/'", -1) }} as file_name,
        {{ dbt.split_part('_source_file', "'/'", -2) }} as release
    from requests
),

final as (
    select
        timestamp_s,
        day_index,
        second_of_day,
        cast(floor(second_of_day / 3600) as {{ dbt.type_int() }}) as hour_of_day,
        cast(floor(timestamp_s / 3600) as {{ dbt.type_bigint() }}) as hour_index,
        cast(day_index % 7 as {{ dbt.type_int() }}) as relative_weekday,
        request_time_utc,
        {{ burstgpt_local_date('day_index') }} as request_local_date,
        session_id,
        elapsed_s,
        model_name,
        log_type,
        request_tokens,
        response_tokens,
        total_tokens,
        response_tokens = 0 as is_failed,
        {{ dbt.safe_cast(dbt.split_part("replace(file_name, '.csv', '')", "'_'", -1), dbt.type_int()) }}
            as file_number,
        release,
        file_name,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from located
)

select * from final
