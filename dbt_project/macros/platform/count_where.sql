{#- Number of rows where `condition` holds, as a 64-bit integer on every engine. -#}
{% macro count_where(condition) -%}
    {{ return(adapter.dispatch('count_where', 'trace_warehouse')(condition)) }}
{%- endmacro %}

{% macro default__count_where(condition) -%}
    cast(sum(case when {{ condition }} then 1 else 0 end) as {{ dbt.type_bigint() }})
{%- endmacro %}

{#- DuckDB's count_if tests the condition once per row, without the sum's addition of 0s. -#}
{% macro duckdb__count_where(condition) -%}
    cast(count_if({{ condition }}) as {{ dbt.type_bigint() }})
{%- endmacro %}
