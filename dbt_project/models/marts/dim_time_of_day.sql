-- One row per second of the day (key = second of the day, 0-86399; natural key 'HH:MM:SS'), plus the
-- unknown member (-1). Facts say which clock their key is on (UTC, or BurstGPT's UTC+8 trace clock).
with

numbers as (
    {{ dbt.generate_series(86400) }}
),

seconds as (
    select numbers.generated_number - 1 as second_of_day
    from numbers
),

parts as (
    select
        second_of_day,
        cast(floor(second_of_day / 3600) as {{ dbt.type_int() }}) as hour_of_day,
        cast(floor((second_of_day % 3600) / 60) as {{ dbt.type_int() }}) as minute_of_hour,
        cast(second_of_day % 60 as {{ dbt.type_int() }}) as second_of_minute
    from seconds
),

members as (
    select
        second_of_day as time_of_day_key,
        {{ dbt.concat([
            "lpad(cast(hour_of_day as " ~ dbt.type_string() ~ "), 2, '0')", "':'",
            "lpad(cast(minute_of_hour as " ~ dbt.type_string() ~ "), 2, '0')", "':'",
            "lpad(cast(second_of_minute as " ~ dbt.type_string() ~ "), 2, '0')"]) }} as time_label,
        hour_of_day,
        minute_of_hour,
        second_of_minute,
        cast(floor(minute_of_hour / 15) as {{ dbt.type_int() }}) + hour_of_day * 4 as quarter_hour_of_day
    from parts

    union all

    select
        -1 as time_of_day_key,
        'unknown' as time_label,
        null as hour_of_day,
        null as minute_of_hour,
        null as second_of_minute,
        null as quarter_hour_of_day
),

final as (
    select
        cast(time_of_day_key as {{ dbt.type_int() }}) as time_of_day_key,
        cast(time_label as {{ dbt.type_string() }}) as time_label,
        cast(hour_of_day as {{ dbt.type_int() }}) as hour_of_day,
        cast(minute_of_hour as {{ dbt.type_int() }}) as minute_of_hour,
        cast(second_of_minute as {{ dbt.type_int() }}) as second_of_minute,
        cast(quarter_hour_of_day as {{ dbt.type_int() }}) as quarter_hour_of_day
    from members
)

select * from final
