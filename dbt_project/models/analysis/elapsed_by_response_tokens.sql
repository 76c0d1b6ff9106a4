-- One row per BurstGPT file, model and response-token bucket: how long a request took (elapsed_s, from
-- submission to the final response) against the tokens it returned. Only BurstGPT_3 (v2.0) has an Elapsed
-- time column, so files 1 and 2 have no row. Buckets double: 0 tokens (failed requests), (0, 1], (1, 2],
-- (2, 4], ..., (8192, 16384], then > 16384. Percentiles are interpolated.
{%- set fractions = [0.5, 0.9] %}
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

buckets as (
    select
        0 as token_bucket_index,
        '0' as token_bucket,
        -1 as tokens_above,
        0 as tokens_at_most
    {%- for i in range(1, 16) %}
    union all
    select
        {{ i }} as token_bucket_index,
        '({{ 0 if i == 1 else 2 ** (i - 2) }}, {{ 2 ** (i - 1) }}]' as token_bucket,
        {{ 0 if i == 1 else 2 ** (i - 2) }} as tokens_above,
        {{ 2 ** (i - 1) }} as tokens_at_most
    {%- endfor %}
    union all
    select
        16 as token_bucket_index,
        '> 16384' as token_bucket,
        16384 as tokens_above,
        null as tokens_at_most
),

timed as (
    select
        labelled.file_number,
        labelled.release,
        labelled.model_name,
        buckets.token_bucket_index,
        buckets.token_bucket,
        labelled.elapsed_s,
        labelled.request_tokens,
        labelled.response_tokens,
        labelled._data_origin
    from labelled
    inner join buckets
        on
            labelled.response_tokens > buckets.tokens_above
            and (buckets.tokens_at_most is null or labelled.response_tokens <= buckets.tokens_at_most)
    where labelled.elapsed_s is not null
),

stats as (
    select
        file_number,
        release,
        model_name,
        token_bucket_index,
        token_bucket,
        count(*) as requests,
        avg(elapsed_s) as mean_elapsed_s,
        {{ percentiles_cont('elapsed_s', fractions) }} as elapsed_percentiles,
        max(elapsed_s) as max_elapsed_s,
        avg(request_tokens) as mean_request_tokens,
        avg(response_tokens) as mean_response_tokens,
        sum(elapsed_s) / nullif(sum(response_tokens), 0) as elapsed_s_per_response_token,
        {{ count_where("_data_origin = 'real'") }} as real_requests,
        {{ count_where("_data_origin = 'synthetic'") }} as synthetic_requests
    from timed
    group by file_number, release, model_name, token_bucket_index, token_bucket
),

final as (
    select
        file_number,
        release,
        model_name,
        cast(token_bucket_index as {{ dbt.type_int() }}) as token_bucket_index,
        cast(token_bucket as {{ dbt.type_string() }}) as token_bucket,
        cast(requests as {{ dbt.type_bigint() }}) as requests,
        cast(mean_elapsed_s as {{ type_double() }}) as mean_elapsed_s,
        {%- for fraction in fractions %}
        cast({{ array_at('elapsed_percentiles', loop.index) }} as {{ type_double() }})
            as p{{ (fraction * 100) | int }}_elapsed_s,
        {%- endfor %}
        cast(max_elapsed_s as {{ type_double() }}) as max_elapsed_s,
        cast(mean_request_tokens as {{ type_double() }}) as mean_request_tokens,
        cast(mean_response_tokens as {{ type_double() }}) as mean_response_tokens,
        cast(elapsed_s_per_response_token as {{ type_double() }}) as elapsed_s_per_response_token,
        cast(real_requests as {{ dbt.type_bigint() }}) as real_requests,
        cast(synthetic_requests as {{ dbt.type_bigint() }}) as synthetic_requests,
        {{ data_origin_label('real_requests', 'synthetic_requests') }} as data_origin
    from stats
)

select * from final
