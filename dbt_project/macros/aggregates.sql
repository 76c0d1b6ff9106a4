{#- Number of rows where `condition` holds, as a 64-bit integer on every engine. -#}
{% macro count_where(condition) -%}
    cast(sum(case when {{ condition }} then 1 else 0 end) as {{ dbt.type_bigint() }})
{%- endmacro %}
