-- One row per BurstGPT file and relative weekday (day_index % 7; the true weekday needs the unpublished
-- start date): requests, failed, days observed and mean requests per observed day.
with

requests as (
    select * from {{ ref('fct_request') }}
),

final as (
    select
        file_number,
        release,
        relative_weekday,
        count(*) as requests,
        {{ count_where("is_failed") }} as failed_requests,
        count(distinct day_index) as days_observed,
        cast(count(*) as {{ type_double() }}) / count(distinct day_index) as mean_requests_per_day
    from requests
    group by file_number, release, relative_weekday
)

select * from final
