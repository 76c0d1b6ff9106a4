-- One row per server of a cluster (natural key cluster_name + node_id, where node_id is the IP, or the pod
-- name where Kalos files use one and no IP is known for it), with its server type where IPMI tells it, plus
-- the unknown member. A pod name mapped to an IP (seed node_aliases) is the IP's member, named in pod_names.
with

series as (
    select * from {{ ref('int_node_series') }}
),

power as (
    select * from {{ ref('int_server_power_typed') }}
),

metric_nodes as (
    select
        cluster_name,
        node_id,
        max(case when series_kind like 'ip%' or node_alias is not null then 1 else 0 end) as is_ip,
        max(node_alias) as pod_name
    from series
    group by cluster_name, node_id
),

power_nodes as (
    select
        cluster_name,
        node_id,
        case when count(distinct server_type) = 1 then max(server_type) else 'mixed' end as server_type
    from power
    where node_id is not null
    group by cluster_name, node_id
),

nodes as (
    select
        coalesce(metric_nodes.cluster_name, power_nodes.cluster_name) as cluster_name,
        coalesce(metric_nodes.node_id, power_nodes.node_id) as node_id,
        case
            when metric_nodes.is_ip = 1 then 'ip'
            when metric_nodes.is_ip = 0 then 'pod_name'
            else 'ipmi_id'
        end as node_id_kind,
        metric_nodes.pod_name,
        power_nodes.server_type,
        metric_nodes.node_id is not null as has_utilization,
        power_nodes.node_id is not null as has_power
    from metric_nodes
    full outer join power_nodes
        on
            metric_nodes.cluster_name = power_nodes.cluster_name
            and metric_nodes.node_id = power_nodes.node_id
),

members as (
    select
        {{ surrogate_key(['cluster_name', 'node_id']) }} as node_key,
        {{ surrogate_key(['cluster_name']) }} as cluster_key,
        cluster_name,
        node_id,
        node_id_kind,
        pod_name,
        server_type,
        case
            when server_type in ('A', 'B', 'C') then 'gpu'
            when server_type = 'D' then 'cpu'
        end as server_class,
        has_utilization,
        has_power
    from nodes

    union all

    select
        {{ unknown_key() }} as node_key,
        {{ unknown_key() }} as cluster_key,
        'unknown' as cluster_name,
        'unknown' as node_id,
        'unknown' as node_id_kind,
        cast(null as {{ dbt.type_string() }}) as pod_name,
        cast(null as {{ dbt.type_string() }}) as server_type,
        cast(null as {{ dbt.type_string() }}) as server_class,
        false as has_utilization,
        false as has_power
),

final as (
    select
        cast(node_key as {{ dbt.type_string() }}) as node_key,
        cast(cluster_key as {{ dbt.type_string() }}) as cluster_key,
        cast(cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(node_id as {{ dbt.type_string() }}) as node_id,
        cast(node_id_kind as {{ dbt.type_string() }}) as node_id_kind,
        cast(pod_name as {{ dbt.type_string() }}) as pod_name,
        cast(server_type as {{ dbt.type_string() }}) as server_type,
        cast(server_class as {{ dbt.type_string() }}) as server_class,
        cast(has_utilization as {{ dbt.type_boolean() }}) as has_utilization,
        cast(has_power as {{ dbt.type_boolean() }}) as has_power
    from members
)

select * from final
