-- Grain: one row per GPU (DCGM metrics) or node (Prometheus metrics), metric and 15 s sample; repeated
-- samples were dropped in int_node_metrics_keyed. Node-level rows point at the unknown GPU.
{{ config(**partition_replace_config()) }}

with

samples as (
    select * from {{ ref('int_node_metrics_keyed') }}
    where {{ partition_window() }}
),

units as (
    select * from {{ ref('metric_units') }}
),

final as (
    select
        cast({{ surrogate_key(['samples.cluster_name']) }} as {{ dbt.type_string() }}) as cluster_key,
        cast({{ surrogate_key(['samples.cluster_name', 'samples.node_id']) }} as {{ dbt.type_string() }})
            as node_key,
        cast(
            {{ surrogate_key(['samples.cluster_name', 'samples.node_id', 'samples.gpu_index']) }}
            as {{ dbt.type_string() }}
        ) as gpu_key,
        {{ date_key('samples.sample_time_utc') }} as sample_date_key,
        {{ time_of_day_key('samples.sample_time_utc') }} as sample_time_of_day_key,
        cast(samples.sample_time_utc as {{ dbt.type_timestamp() }}) as sample_time_utc,
        cast(samples.metric as {{ dbt.type_string() }}) as metric,
        cast(samples.metric_level as {{ dbt.type_string() }}) as metric_level,
        cast(coalesce(units.unit, 'unknown') as {{ dbt.type_string() }}) as unit,
        cast(samples.value as {{ type_double() }}) as value,
        cast(samples.series as {{ dbt.type_string() }}) as series,
        cast(samples.series_kind as {{ dbt.type_string() }}) as series_kind,
        cast(samples.duplicate_samples as {{ dbt.type_bigint() }}) as duplicate_samples,
        cast(samples._source_file as {{ dbt.type_string() }}) as _source_file,
        cast(samples._row_number as {{ dbt.type_bigint() }}) as _row_number,
        cast(samples._data_origin as {{ dbt.type_string() }}) as _data_origin,
        cast(samples._partition as {{ dbt.type_string() }}) as _partition
    from samples
    left join units on samples.metric = units.metric
)

select * from final
