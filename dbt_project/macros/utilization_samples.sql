{#-
  Every staged utilization sample (DCGM GPU and Prometheus node metrics, one column list): the body of a CTE.
  windowed: only the partition window of an incremental model (macros/partition_window.sql).
-#}
{% macro utilization_samples(windowed=true) -%}
    {%- for model in ['stg_acme__gpu_metrics', 'stg_acme__node_metrics'] %}
    select * from {{ ref(model) }}
    {%- if windowed %}
    where {{ partition_window() }}
    {%- endif %}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}
