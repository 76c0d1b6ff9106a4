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

{#-
  Several continuous percentiles of `expression` from one aggregate, as an array (read it with array_at):
  exact percentiles hold every value of a group in memory, so one state for all fractions instead of one
  per fraction (utilization_percentiles over a week of GPU_UTIL: 190 M values of one group).
-#}
{% macro percentiles_cont(expression, fractions) -%}
    {{ return(adapter.dispatch('percentiles_cont', 'trace_warehouse')(expression, fractions)) }}
{%- endmacro %}

{% macro default__percentiles_cont(expression, fractions) -%}
    quantile_cont({{ expression }}, [{{ fractions | join(', ') }}])
{%- endmacro %}

{% macro spark__percentiles_cont(expression, fractions) -%}
    percentile({{ expression }}, array({{ fractions | join(', ') }}))
{%- endmacro %}

{#- Element `index` (1-based) of an array. -#}
{% macro array_at(array, index) -%}
    {{ return(adapter.dispatch('array_at', 'trace_warehouse')(array, index)) }}
{%- endmacro %}

{% macro default__array_at(array, index) -%}
    {{ array }}[{{ index }}]
{%- endmacro %}

{% macro spark__array_at(array, index) -%}
    element_at({{ array }}, {{ index }})
{%- endmacro %}
