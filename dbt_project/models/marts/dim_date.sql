-- One row per calendar day (natural key date_day, key yyyymmdd) from the first to the last day any fact
-- touches (jobs' submit dates and samples in UTC; requests' trace-clock dates only when
-- burstgpt_start_date is set), plus the unknown member (-1). The spine holds at most 16,384 days.
with

jobs as (
    select * from {{ ref('int_jobs_deduplicated') }}
),

metric_lines as (
    select * from {{ ref('int_node_metric_lines') }}
),

power as (
    select * from {{ ref('int_server_power_typed') }}
),

requests as (
    select * from {{ ref('int_requests_enriched') }}
),

numbers as (
    {{ dbt.generate_series(16384) }}
),

touched as (
    {%- for relation, column in [
        ('jobs', 'submit_time_utc'), ('metric_lines', 'sample_time_utc'), ('power', 'sample_time_utc'),
        ('requests', 'request_local_date')] %}
    select
        cast(min({{ column }}) as date) as first_day,
        cast(max({{ column }}) as date) as last_day
    from {{ relation }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
),

bounds as (
    select
        min(first_day) as first_day,
        max(last_day) as last_day
    from touched
),

spine as (
    select cast({{ dbt.dateadd('day', 'numbers.generated_number - 1', 'bounds.first_day') }} as date) as date_day
    from numbers
    cross join bounds
    where numbers.generated_number - 1 <= {{ dbt.datediff('bounds.first_day', 'bounds.last_day', 'day') }}
),

days as (
    select
        {{ date_key('date_day') }} as date_key,
        date_day,
        extract(year from date_day) as year_number,
        extract(month from date_day) as month_number,
        extract(day from date_day) as day_of_month,
        -- ISO weekday (1 = Monday) counted from Monday 1970-01-05, the same on every engine.
        (
            {{ dbt.datediff("cast('1970-01-05' as date)", 'date_day', 'day') }}
            % 7 + 7
        ) % 7 + 1 as iso_day_of_week
    from spine
),

members as (
    select
        date_key,
        date_day,
        year_number,
        month_number,
        day_of_month,
        iso_day_of_week,
        iso_day_of_week >= 6 as is_weekend
    from days

    union all

    select
        -1 as date_key,
        cast(null as date) as date_day,
        null as year_number,
        null as month_number,
        null as day_of_month,
        null as iso_day_of_week,
        null as is_weekend
),

final as (
    select
        cast(date_key as {{ dbt.type_int() }}) as date_key,
        cast(date_day as date) as date_day,
        cast(year_number as {{ dbt.type_int() }}) as year_number,
        cast(month_number as {{ dbt.type_int() }}) as month_number,
        cast(day_of_month as {{ dbt.type_int() }}) as day_of_month,
        cast(iso_day_of_week as {{ dbt.type_int() }}) as iso_day_of_week,
        cast(is_weekend as {{ dbt.type_boolean() }}) as is_weekend
    from members
)

select * from final
