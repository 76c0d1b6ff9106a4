{#- Continuous (interpolated) percentile of `expression` at fraction `fraction`, as an aggregate. -#}
{% macro percentile_cont(expression, fraction) -%}
    {{ return(adapter.dispatch('percentile_cont', 'trace_warehouse')(expression, fraction)) }}
{%- endmacro %}

{% macro default__percentile_cont(expression, fraction) -%}
    percentile_cont({{ fraction }}) within group (order by {{ expression }})
{%- endmacro %}

{% macro duckdb__percentile_cont(expression, fraction) -%}
    quantile_cont({{ expression }}, {{ fraction }})
{%- endmacro %}

{% macro spark__percentile_cont(expression, fraction) -%}
    percentile({{ expression }}, {{ fraction }})
{%- endmacro %}
