-- One row per (cluster, metric, node, GPU index, 15 s sample): utilization samples keyed to dim_node and
-- dim_gpu. The wide file's column name (series) is parsed: a GPU metric's trailing '-<0..7>' is the GPU
-- index (10.140.0.1-3, lingjun-pod9-0016-3); the rest is the node id, an IP or a Kalos pod name; a
-- spurious '.1' after an IP (10.140.0.131.1, NODE_MEMORY on 2023-07-19) maps back to the IP. Repeated
-- samples of one series and time are dropped keeping the first _row_number; duplicate_samples counts them.
-- A pod name with a known IP (seed node_aliases; upstream publishes none) is keyed by that IP, node_alias
-- keeping the pod name. A sample's lake partition is its UTC date, so repeats never cross partitions: the
-- model is written partition by partition (partition_replace_config; on DuckDB Parquet in the lake).
{{ config(**partition_replace_config()) }}

with

gpu_metrics as (
    select * from {{ ref('stg_acme__gpu_metrics') }}
    where {{ partition_window() }}
),

node_metrics as (
    select * from {{ ref('stg_acme__node_metrics') }}
    where {{ partition_window() }}
),

aliases as (
    select * from {{ ref('node_aliases') }}
),

samples as (
    select * from gpu_metrics
    union all
    select * from node_metrics
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
    from samples
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

ranked as (
    select
        *,
        row_number() over (
            partition by _partition, cluster_name, metric, node_id, gpu_index, sample_time_utc
            order by _row_number, _source_file, series_kind
        ) as occurrence,
        count(*) over (
            partition by _partition, cluster_name, metric, node_id, gpu_index, sample_time_utc
        ) as sample_rows
    from keyed
),

final as (
    select
        cluster_name,
        metric_level,
        metric,
        series,
        series_kind,
        node_id,
        node_alias,
        gpu_index,
        sample_time_utc,
        utc_offset,
        value,
        sample_rows - 1 as duplicate_samples,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from ranked
    where occurrence = 1
)

select * from final
