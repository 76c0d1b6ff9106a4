-- One row per BurstGPT file (1-3): requests, failed and not-failed requests, token maxima over not-failed
-- requests, mean not-failed requests per hour over the file's span, real/synthetic rows; the published
-- numbers beside them (those of the without-fails twins are the not-failed ones).
with

requests as (
    select * from {{ ref('fct_request') }}
),

published as (
    select * from {{ ref('published_numbers') }}
),

files as (
    select
        file_number,
        release,
        {{ dbt.concat(["'BurstGPT_'", 'cast(file_number as ' ~ dbt.type_string() ~ ')', "'.csv'"]) }} as file_name,
        count(*) as requests,
        {{ count_where("is_failed") }} as failed_requests,
        {{ count_where("not is_failed") }} as not_failed_requests,
        min(timestamp_s) as first_timestamp_s,
        max(timestamp_s) as last_timestamp_s,
        max(hour_index) - min(hour_index) + 1 as hours_spanned,
        max(case when is_failed then null else request_tokens end) as max_request_tokens,
        max(case when is_failed then null else response_tokens end) as max_response_tokens,
        cast(sum(request_tokens) as {{ dbt.type_bigint() }}) as request_tokens,
        cast(sum(response_tokens) as {{ dbt.type_bigint() }}) as response_tokens,
        {{ count_where("_data_origin = 'real'") }} as real_requests,
        {{ count_where("_data_origin = 'synthetic'") }} as synthetic_requests
    from requests
    group by file_number, release
),

published_by_file as (
    select
        {%- for measure in ['rows', 'failed_requests', 'not_failed_requests', 'max_request_tokens',
                            'max_response_tokens', 'mean_requests_per_hour'] %}
        max(case when measure = '{{ measure }}' then published_value end) as published_{{ measure }},
        {%- endfor %}
        scope as file_name
    from published
    group by scope
),

final as (
    select
        files.*,
        cast(files.not_failed_requests as {{ type_double() }}) / files.hours_spanned
            as mean_not_failed_requests_per_hour,
        published_by_file.published_rows,
        published_by_file.published_failed_requests,
        published_by_file.published_not_failed_requests,
        published_by_file.published_max_request_tokens,
        published_by_file.published_max_response_tokens,
        published_by_file.published_mean_requests_per_hour
    from files
    left join published_by_file on files.file_name = published_by_file.file_name
)

select * from final
