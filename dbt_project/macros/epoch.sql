{#- Whole seconds since 1970-01-01 00:00:00 of a UTC timestamp, as dbt.datediff counts them on every engine. -#}
{% macro epoch_seconds(expression) -%}
    {{ dbt.datediff(epoch_timestamp(), expression, 'second') }}
{%- endmacro %}


{#- 1970-01-01 00:00:00 as a timestamp (the origin of hour_index in cluster_occupancy_hourly). -#}
{% macro epoch_timestamp() -%}
    cast('1970-01-01 00:00:00' as {{ dbt.type_timestamp() }})
{%- endmacro %}
