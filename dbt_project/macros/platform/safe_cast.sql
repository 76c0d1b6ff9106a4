{#- dbt-duckdb's safe_cast is a plain CAST that raises; an invalid value must become NULL on every engine. -#}
{% macro duckdb__safe_cast(field, type) -%}
    try_cast({{ field }} as {{ type }})
{%- endmacro %}

{#- dbt-spark's safe_cast is a plain CAST: NULL on an invalid value only while ANSI mode is off. -#}
{% macro spark__safe_cast(field, type) -%}
    try_cast({{ field }} as {{ type }})
{%- endmacro %}
