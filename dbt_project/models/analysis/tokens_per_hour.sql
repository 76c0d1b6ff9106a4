-- One row per BurstGPT file and hour of the trace clock (hour_index = floor(timestamp_s / 3600)) from the
-- file's first to its last hour, hours without requests included: requests, not failed, and request /
-- response / total tokens in the hour (all requests; a failed request carries 0 response tokens), with the
-- mean tokens per second over the hour. The calendar hour (UTC) exists only when burstgpt_start_date is set.
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
        {{ count_where("not is_failed") }} as not_failed_requests,
        sum(request_tokens) as request_tokens,
        sum(response_tokens) as response_tokens,
        sum(total_tokens) as total_tokens,
        {{ count_where("_data_origin = 'real'") }} as real_requests,
        {{ count_where("_data_origin = 'synthetic'") }} as synthetic_requests
    from requests
    group by file_number, release, hour_index
),

spine as (
    {{ file_hour_spine('counted') }}
),

filled as (
    select
        spine.file_number,
        spine.release,
        spine.hour_index,
        coalesce(counted.requests, 0) as requests,
        coalesce(counted.not_failed_requests, 0) as not_failed_requests,
        coalesce(counted.request_tokens, 0) as request_tokens,
        coalesce(counted.response_tokens, 0) as response_tokens,
        coalesce(counted.total_tokens, 0) as total_tokens,
        coalesce(counted.real_requests, 0) as real_requests,
        coalesce(counted.synthetic_requests, 0) as synthetic_requests
    from spine
    left join counted
        on
            spine.file_number = counted.file_number
            and spine.release = counted.release
            and spine.hour_index = counted.hour_index
),

final as (
    select
        file_number,
        release,
        cast(hour_index as {{ dbt.type_bigint() }}) as hour_index,
        cast(floor(hour_index / 24) as {{ dbt.type_bigint() }}) as day_index,
        cast(hour_index % 24 as {{ dbt.type_int() }}) as hour_of_day,
        {{ burstgpt_utc_timestamp('hour_index * 3600') }} as hour_start_utc,
        cast(requests as {{ dbt.type_bigint() }}) as requests,
        cast(not_failed_requests as {{ dbt.type_bigint() }}) as not_failed_requests,
        cast(request_tokens as {{ dbt.type_bigint() }}) as request_tokens,
        cast(response_tokens as {{ dbt.type_bigint() }}) as response_tokens,
        cast(total_tokens as {{ dbt.type_bigint() }}) as total_tokens,
        cast(cast(request_tokens as {{ type_double() }}) / 3600 as {{ type_double() }}) as request_tokens_per_s,
        cast(cast(response_tokens as {{ type_double() }}) / 3600 as {{ type_double() }}) as response_tokens_per_s,
        cast(real_requests as {{ dbt.type_bigint() }}) as real_requests,
        cast(synthetic_requests as {{ dbt.type_bigint() }}) as synthetic_requests,
        {{ data_origin_label('real_requests', 'synthetic_requests') }} as data_origin
    from filled
)

select * from final
