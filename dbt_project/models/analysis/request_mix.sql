-- One row per BurstGPT file, attribute (model, log_type) and value: requests, failed and not failed, share
-- of the file's requests, with the published not-failed counts (the without-fails twins') beside them.
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

published as (
    select * from {{ ref('published_numbers') }}
),

labelled as (
    {{ labelled_requests() }}
),

attributes as (
    select
        file_number,
        release,
        'model' as attribute,
        model_name as attribute_value,
        is_failed
    from labelled

    union all

    select
        file_number,
        release,
        'log_type' as attribute,
        log_type as attribute_value,
        is_failed
    from labelled
),

counted as (
    select
        file_number,
        release,
        attribute,
        attribute_value,
        count(*) as requests,
        {{ count_where("is_failed") }} as failed_requests,
        {{ count_where("not is_failed") }} as not_failed_requests
    from attributes
    group by file_number, release, attribute, attribute_value
),

final as (
    select
        counted.*,
        cast(counted.requests as {{ type_double() }})
        / sum(counted.requests) over (partition by counted.file_number, counted.attribute) as share_of_requests,
        published.published_value as published_not_failed_requests
    from counted
    left join published
        on
            published.measure = {{ dbt.concat(["'not_failed_requests_by_'", 'counted.attribute']) }}
            and published.scope
            = {{ dbt.concat(["'BurstGPT_'", 'cast(counted.file_number as ' ~ dbt.type_string() ~ ')', "'.csv'"]) }}
            and counted.attribute_value = published.subject
)

select * from final
