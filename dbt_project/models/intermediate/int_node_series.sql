-- One row per series (column name of a wide utilization file) of a cluster and metric, parsed once for all
-- its samples: a GPU metric's trailing '-<0..7>' is the GPU index (10.140.0.1-3, lingjun-pod9-0016-3); the
-- rest is the node id, an IP or a Kalos pod name; a spurious '.1' after an IP (10.140.0.131.1, NODE_MEMORY
-- on 2023-07-19) maps back to the IP. A pod name with a known IP (seed node_aliases; upstream publishes
-- none) is keyed by that IP, node_alias keeping the pod name. node_shared: another series of the same
-- cluster and metric names the same node and GPU, so their samples may repeat one another
-- (int_node_metrics_keyed de-duplicates them). The series' surrogate keys and the metric's unit are here,
-- so the facts' views join this small table instead of hashing every sample.
with

partitions as (
    select * from {{ ref('int_node_metric_series') }}
),

aliases as (
    select * from {{ ref('node_aliases') }}
),

units as (
    select * from {{ ref('metric_units') }}
),

series as (
    select
        cluster_name,
        metric_level,
        metric,
        series,
        sum(cells) as cells
    from partitions
    group by cluster_name, metric_level, metric, series
),

gpu_parsed as (
    select
        *,
        case
            when
                metric_level = 'gpu'
                and {{ dbt.length('series') }} > 2
                and substring(series, {{ dbt.length('series') }} - 1, 1) = '-'
                and {{ dbt.right('series', 1) }} in ('0', '1', '2', '3', '4', '5', '6', '7')
                then cast({{ dbt.right('series', 1) }} as {{ dbt.type_int() }})
        end as gpu_index
    from series
),

node_parsed as (
    select
        *,
        case
            when gpu_index is null then series
            else substring(series, 1, {{ dbt.length('series') }} - 2)
        end as node_series
    from gpu_parsed
),

node_keyed as (
    select
        *,
        {{ dbt.length('node_series') }} - {{ dbt.length(dbt.replace('node_series', "'.'", "''")) }} as dots,
        {{ dbt.right('node_series', 2) }} = '.1' as ends_with_dot_one
    from node_parsed
),

named as (
    select
        *,
        case
            when dots = 4 and ends_with_dot_one then substring(node_series, 1, {{ dbt.length('node_series') }} - 2)
            else node_series
        end as series_node_id,
        case
            when dots = 4 and ends_with_dot_one then 'ip_with_suffix'
            when dots = 3 and gpu_index is not null then 'ip_gpu'
            when dots = 3 then 'ip'
            when gpu_index is not null then 'name_gpu'
            else 'name'
        end as series_kind
    from node_keyed
),

keyed as (
    select
        named.*,
        coalesce(aliases.node_id, named.series_node_id) as node_id,
        aliases.alias as node_alias
    from named
    left join aliases
        on named.cluster_name = aliases.cluster_name and named.series_node_id = aliases.alias
),

final as (
    select
        cast(keyed.cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(keyed.metric_level as {{ dbt.type_string() }}) as metric_level,
        cast(keyed.metric as {{ dbt.type_string() }}) as metric,
        cast(keyed.series as {{ dbt.type_string() }}) as series,
        cast(keyed.series_kind as {{ dbt.type_string() }}) as series_kind,
        cast(keyed.node_id as {{ dbt.type_string() }}) as node_id,
        cast(keyed.node_alias as {{ dbt.type_string() }}) as node_alias,
        cast(keyed.gpu_index as {{ dbt.type_int() }}) as gpu_index,
        cast({{ surrogate_key(['keyed.cluster_name']) }} as {{ dbt.type_string() }}) as cluster_key,
        cast({{ surrogate_key(['keyed.cluster_name', 'keyed.node_id']) }} as {{ dbt.type_string() }}) as node_key,
        cast(
            {{ surrogate_key(['keyed.cluster_name', 'keyed.node_id', 'keyed.gpu_index']) }}
            as {{ dbt.type_string() }}
        ) as gpu_key,
        cast(coalesce(units.unit, 'unknown') as {{ dbt.type_string() }}) as unit,
        count(*) over (
            partition by keyed.cluster_name, keyed.metric, keyed.node_id, keyed.gpu_index
        ) > 1 as node_shared,
        cast(keyed.cells as {{ dbt.type_bigint() }}) as cells
    from keyed
    left join units on keyed.metric = units.metric
)

select * from final
