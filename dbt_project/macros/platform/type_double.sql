{#- An explicit 64-bit float: dbt.type_float() is 32-bit on some engines. -#}
{% macro type_double() -%}
    {{ return(adapter.dispatch('type_double', 'trace_warehouse')()) }}
{%- endmacro %}

{% macro default__type_double() -%}
    double precision
{%- endmacro %}

{% macro duckdb__type_double() -%}
    double
{%- endmacro %}

{% macro spark__type_double() -%}
    double
{%- endmacro %}
