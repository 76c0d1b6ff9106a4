-- One row per BurstGPT file and hour of the trace clock (hour_index = floor(timestamp_s / 3600)) from the
-- file's first to its last hour, hours without requests included: requests, failed and not failed.
-- The calendar hour (UTC) exists only when burstgpt_start_date is set.
with

requests as (
    select * from {{ ref('fct_request') }}
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

spine as (
    {{ file_hour_spine('counted') }}
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
