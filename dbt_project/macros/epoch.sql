{#- Whole seconds since 1970-01-01 00:00:00 of a UTC timestamp, as dbt.datediff counts them on every engine. -#}
{% macro epoch_seconds(expression) -%}
    {{ dbt.datediff(epoch_timestamp(), expression, 'second') }}
{%- endmacro %}


{#- 1970-01-01 00:00:00 as a timestamp (the origin of hour_index in cluster_occupancy_hourly). -#}
{% macro epoch_timestamp() -%}
    cast('1970-01-01 00:00:00' as {{ dbt.type_timestamp() }})
{%- endmacro %}


{#- Whole hours since 1970-01-01 00:00:00 of a UTC timestamp (the hour_index of the utilization hours). -#}
{% macro epoch_hour(expression) -%}
    {{ return(adapter.dispatch('epoch_hour', 'trace_warehouse')(expression)) }}
{%- endmacro %}


{% macro default__epoch_hour(expression) -%}
    cast(floor({{ epoch_seconds(expression) }} / 3600) as {{ dbt.type_bigint() }})
{%- endmacro %}


{#- DuckDB: from the timestamp's microseconds, without dbt.datediff's subtraction of two timestamps. -#}
{% macro duckdb__epoch_hour(expression) -%}
    cast(floor(epoch_us({{ expression }}) / 3600000000) as {{ dbt.type_bigint() }})
{%- endmacro %}
