-- One row per cluster (natural key cluster_name), plus the unknown member.
with

catalog as (
    select * from {{ ref('cluster_catalog') }}
),

jobs as (
    select * from {{ ref('int_jobs_deduplicated') }}
),

series as (
    select * from {{ ref('int_node_series') }}
),

power as (
    select * from {{ ref('int_server_power_typed') }}
),

observed as (
    {{ distinct_values('cluster_name', ['jobs', 'series', 'power']) }}
),

clusters as (
    select
        cluster_name,
        cluster_label,
        trace_name,
        utc_offset_written,
        true as is_documented
    from catalog

    union all

    select
        observed.cluster_name,
        observed.cluster_name as cluster_label,
        'undocumented' as trace_name,
        cast(null as {{ dbt.type_string() }}) as utc_offset_written,
        false as is_documented
    from observed
    left join catalog on observed.cluster_name = catalog.cluster_name
    where catalog.cluster_name is null and observed.cluster_name is not null
),

members as (
    select
        {{ surrogate_key(['cluster_name']) }} as cluster_key,
        cluster_name,
        cluster_label,
        trace_name,
        utc_offset_written,
        is_documented
    from clusters

    union all

    select
        {{ unknown_key() }} as cluster_key,
        'unknown' as cluster_name,
        'Unknown' as cluster_label,
        'unknown' as trace_name,
        cast(null as {{ dbt.type_string() }}) as utc_offset_written,
        false as is_documented
),

final as (
    select
        cast(cluster_key as {{ dbt.type_string() }}) as cluster_key,
        cast(cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(cluster_label as {{ dbt.type_string() }}) as cluster_label,
        cast(trace_name as {{ dbt.type_string() }}) as trace_name,
        cast(utc_offset_written as {{ dbt.type_string() }}) as utc_offset_written,
        cast(is_documented as {{ dbt.type_boolean() }}) as is_documented
    from members
)

select * from final
