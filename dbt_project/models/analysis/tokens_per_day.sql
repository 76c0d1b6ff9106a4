-- One row per BurstGPT file and day of the trace clock (day_index = floor(timestamp_s / 86400), UTC+8)
-- from the file's first to its last hour's day: requests and tokens of the day (from tokens_per_hour, so
-- both agree), the busiest hour's requests and total tokens, and the hours the file covers that day (its
-- first and last day can be partial). The calendar date exists only when burstgpt_start_date is set.
with

hours as (
    select * from {{ ref('tokens_per_hour') }}
),

final as (
    select
        file_number,
        release,
        day_index,
        {{ burstgpt_local_date('day_index') }} as local_date,
        cast(count(*) as {{ dbt.type_int() }}) as hours_covered,
        cast(sum(requests) as {{ dbt.type_bigint() }}) as requests,
        cast(sum(not_failed_requests) as {{ dbt.type_bigint() }}) as not_failed_requests,
        cast(sum(request_tokens) as {{ dbt.type_bigint() }}) as request_tokens,
        cast(sum(response_tokens) as {{ dbt.type_bigint() }}) as response_tokens,
        cast(sum(total_tokens) as {{ dbt.type_bigint() }}) as total_tokens,
        cast(max(requests) as {{ dbt.type_bigint() }}) as peak_hour_requests,
        cast(max(total_tokens) as {{ dbt.type_bigint() }}) as peak_hour_total_tokens,
        cast(sum(real_requests) as {{ dbt.type_bigint() }}) as real_requests,
        cast(sum(synthetic_requests) as {{ dbt.type_bigint() }}) as synthetic_requests,
        {{ data_origin_label('sum(real_requests)', 'sum(synthetic_requests)') }} as data_origin
    from hours
    group by file_number, release, day_index
)

select * from final
