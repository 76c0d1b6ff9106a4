-- One row per BurstGPT file and hour of the trace clock (hour_index = floor(timestamp_s / 3600)) from the
-- file's first to its last hour, hours without requests included: requests, failed and not failed.
-- The calendar hour (UTC) exists only when burstgpt_start_date is set.
with

requests as (
    select * from {{ ref('fct_request') }}
),

numbers as (
    {{ dbt.generate_series(16384) }}
),

counted as (
    select
        file_number,
        release,
        hour_index,
        count(*) as requests,
        {{ count_where("is_failed") }} as failed_requests
    from requests
    group by file_number, release, hour_index
),

file_hours as (
    select
        file_number,
        release,
        min(hour_index) as first_hour_index,
        max(hour_index) as last_hour_index
    from counted
    group by file_number, release
),

spine as (
    select
        file_hours.file_number,
        file_hours.release,
        file_hours.first_hour_index + numbers.generated_number - 1 as hour_index
    from file_hours
    cross join numbers
    where file_hours.first_hour_index + numbers.generated_number - 1 <= file_hours.last_hour_index
),

final as (
    select
        spine.file_number,
        spine.release,
        cast(spine.hour_index as {{ dbt.type_bigint() }}) as hour_index,
        cast(floor(spine.hour_index / 24) as {{ dbt.type_bigint() }}) as day_index,
        cast(spine.hour_index % 24 as {{ dbt.type_int() }}) as hour_of_day,
        {{ burstgpt_utc_timestamp('spine.hour_index * 3600') }} as hour_start_utc,
        coalesce(counted.requests, 0) as requests,
        coalesce(counted.failed_requests, 0) as failed_requests,
        coalesce(counted.requests, 0) - coalesce(counted.failed_requests, 0) as not_failed_requests
    from spine
    left join counted
        on
            spine.file_number = counted.file_number
            and spine.release = counted.release
            and spine.hour_index = counted.hour_index
)

select * from final
