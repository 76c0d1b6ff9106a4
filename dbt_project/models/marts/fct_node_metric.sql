-- Grain: one row per GPU (DCGM metrics) or node (Prometheus metrics), metric and 15 s sample; repeated
-- samples were dropped in int_node_metrics_keyed. Node-level rows point at the unknown GPU. A view: the
-- samples live once, in the raw lake, and their keys come from the small tables int_node_series (per
-- series) and int_node_metric_lines (per line), so the database file and its reader snapshot hold no
-- sample and a build writes none again.
{{ config(materialized='view') }}

with

samples as (
    select * from {{ ref('int_node_metrics_keyed') }}
),

final as (
    select
        cluster_key,
        node_key,
        gpu_key,
        sample_date_key,
        sample_time_of_day_key,
        sample_time_utc,
        metric,
        metric_level,
        unit,
        cast(value as {{ type_double() }}) as value,
        series,
        series_kind,
        duplicate_samples,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from samples
)

select * from final
