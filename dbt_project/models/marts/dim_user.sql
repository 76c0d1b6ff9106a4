-- One row per user of a cluster (natural key cluster_name + user_name: user ids are per cluster), plus
-- the unknown member.
with

jobs as (
    select * from {{ ref('int_jobs_deduplicated') }}
),

users as (
    select
        cluster_name,
        user_name,
        count(*) as jobs,
        min(submit_time_utc) as first_submit_time_utc,
        max(submit_time_utc) as last_submit_time_utc
    from jobs
    where user_name is not null
    group by cluster_name, user_name
),

members as (
    select
        {{ surrogate_key(['cluster_name', 'user_name']) }} as user_key,
        {{ surrogate_key(['cluster_name']) }} as cluster_key,
        cluster_name,
        user_name,
        jobs,
        first_submit_time_utc,
        last_submit_time_utc
    from users

    union all

    select
        {{ unknown_key() }} as user_key,
        {{ unknown_key() }} as cluster_key,
        'unknown' as cluster_name,
        'unknown' as user_name,
        0 as jobs,
        cast(null as {{ dbt.type_timestamp() }}) as first_submit_time_utc,
        cast(null as {{ dbt.type_timestamp() }}) as last_submit_time_utc
),

final as (
    select
        cast(user_key as {{ dbt.type_string() }}) as user_key,
        cast(cluster_key as {{ dbt.type_string() }}) as cluster_key,
        cast(cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(user_name as {{ dbt.type_string() }}) as user_name,
        cast(jobs as {{ dbt.type_bigint() }}) as jobs,
        cast(first_submit_time_utc as {{ dbt.type_timestamp() }}) as first_submit_time_utc,
        cast(last_submit_time_utc as {{ dbt.type_timestamp() }}) as last_submit_time_utc
    from members
)

select * from final
