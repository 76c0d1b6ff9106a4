{#-
  Continuous (interpolated) percentiles of `expression` at `fractions`, as one aggregate returning an array
  (read it with array_at): an exact percentile holds every value of its group in memory, so one state serves
  every fraction (with a state per fraction, BurstGPT's token percentiles at its real size did not fit the
  dbt build's 768 MB).
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
