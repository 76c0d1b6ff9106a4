{#-
  One row per non-empty cell of a utilization metric file (DCGM or Prometheus, long), as loaded; repeated samples are dropped
  in int_node_metrics_keyed. Sample times in UTC (the files write UTC+8). A raw row is one cell, so
  the quarantine is matched on (_source_file, _row_number, series).
  (Shared by stg_acme__gpu_metrics and stg_acme__node_metrics.)
-#}
{% macro stg_utilization_metrics(family) -%}
with

{{ passed_rows(family, keys=['_source_file', '_row_number', 'series']) }},

final as (
    select
        cluster as cluster_name,
        metric,
        series,
        time as sample_time_utc,
        time_utc_offset as utc_offset,
        {{ utc_to_local('time', 'time_utc_offset') }} as sample_time_local,
        value,
        _source_file,
        _row_number,
        _loaded_at,
        _data_origin,
        _partition
    from passed
)

select * from final
{%- endmacro %}
