-- One row per BurstGPT file and model: requests, failed requests (response_tokens = 0) and failure rate.
with

requests as (
    select * from {{ ref('fct_request') }}
),

models as (
    select * from {{ ref('dim_model') }}
),

final as (
    select
        requests.file_number,
        requests.release,
        models.model_name,
        count(*) as requests,
        {{ count_where("requests.is_failed") }} as failed_requests,
        cast({{ count_where("requests.is_failed") }} as {{ type_double() }}) / count(*)
            as failure_rate
    from requests
    inner join models on requests.model_key = models.model_key
    group by requests.file_number, requests.release, models.model_name
)

select * from final
