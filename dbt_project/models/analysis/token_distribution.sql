-- One row per BurstGPT file, model and log type: request/response token totals over all requests, and
-- percentiles, mean and max over not-failed requests (failed ones carry 0 response tokens).
{%- set fractions = [0.5, 0.9, 0.99] %}
with

requests as (
    select * from {{ ref('fct_request') }}
),

models as (
    select * from {{ ref('dim_model') }}
),

log_types as (
    select * from {{ ref('dim_log_type') }}
),

labelled as (
    {{ labelled_requests() }}
),

tokens as (
    select
        labelled.*,
        case when labelled.is_failed then null else labelled.request_tokens end as ok_request_tokens,
        case when labelled.is_failed then null else labelled.response_tokens end as ok_response_tokens
    from labelled
),

-- One percentile state per side for all fractions: an exact percentile holds every value of its group, and
-- with a state per fraction BurstGPT at its real size (10.6 M requests) did not fit DuckDB's memory cap.
distribution as (
    select
        file_number,
        release,
        model_name,
        log_type,
        {%- for side in ['request', 'response'] %}
        {{ percentiles_cont('ok_' ~ side ~ '_tokens', fractions) }} as {{ side }}_tokens_percentiles,
        avg(ok_{{ side }}_tokens) as {{ side }}_tokens_mean,
        max(ok_{{ side }}_tokens) as {{ side }}_tokens_max,
        {%- endfor %}
        count(*) as requests,
        {{ count_where("not is_failed") }} as not_failed_requests,
        cast(sum(request_tokens) as {{ dbt.type_bigint() }}) as request_tokens,
        cast(sum(response_tokens) as {{ dbt.type_bigint() }}) as response_tokens
    from tokens
    group by file_number, release, model_name, log_type
),

final as (
    select
        file_number,
        release,
        model_name,
        log_type,
        {%- for side in ['request', 'response'] %}
        {%- for fraction in fractions %}
        {{ array_at(side ~ '_tokens_percentiles', loop.index) }} as {{ side }}_tokens_p{{ (fraction * 100) | int }},
        {%- endfor %}
        {{ side }}_tokens_mean,
        {{ side }}_tokens_max,
        {%- endfor %}
        requests,
        not_failed_requests,
        request_tokens,
        response_tokens
    from distribution
)

select * from final
