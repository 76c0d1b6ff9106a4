-- One row per BurstGPT file and conversation session. Only BurstGPT_3 (v2.0) has a Session ID: a UUID on
-- every Conversation-log row, empty on every API-log row (DATASETS.md), so files 1 and 2 and API-log rows
-- have no sessions. Turns (requests), failed turns, the first and last turn's timestamp_s, the span, the
-- mean and longest time between consecutive turns, tokens, and elapsed_s (submission to final response).
-- Turns sharing a second keep their file order (_row_number).
with

requests as (
    select * from {{ ref('fct_request') }}
),

turns as (
    select
        file_number,
        release,
        session_id,
        timestamp_s,
        request_tokens,
        response_tokens,
        elapsed_s,
        is_failed,
        _data_origin,
        timestamp_s - lag(timestamp_s) over (
            partition by file_number, session_id order by timestamp_s, _row_number
        ) as gap_s
    from requests
    where session_id is not null and session_id != ''
),

final as (
    select
        file_number,
        release,
        session_id,
        cast(count(*) as {{ dbt.type_bigint() }}) as turns,
        {{ count_where("is_failed") }} as failed_turns,
        cast(min(timestamp_s) as {{ type_double() }}) as first_timestamp_s,
        cast(max(timestamp_s) as {{ type_double() }}) as last_timestamp_s,
        cast(max(timestamp_s) - min(timestamp_s) as {{ type_double() }}) as span_s,
        cast(avg(gap_s) as {{ type_double() }}) as mean_gap_s,
        cast(max(gap_s) as {{ type_double() }}) as max_gap_s,
        cast(sum(request_tokens) as {{ dbt.type_bigint() }}) as request_tokens,
        cast(sum(response_tokens) as {{ dbt.type_bigint() }}) as response_tokens,
        cast(avg(elapsed_s) as {{ type_double() }}) as mean_elapsed_s,
        {{ count_where("_data_origin = 'real'") }} as real_requests,
        {{ count_where("_data_origin = 'synthetic'") }} as synthetic_requests,
        {{ data_origin_label(count_where("_data_origin = 'real'"), count_where("_data_origin = 'synthetic'")) }}
            as data_origin
    from turns
    group by file_number, release, session_id
)

select * from final
