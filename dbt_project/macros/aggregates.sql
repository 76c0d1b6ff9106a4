{#-
  Whether utilization_percentiles reads its percentiles off the binned CDF: mode binned, or mode auto with
  more than `exact_limit` utilization samples in the warehouse (the cells int_node_metric_series counts,
  asked at run time; exact percentiles hold every value in memory and cannot spill).
-#}
{% macro percentiles_binned(mode, exact_limit) -%}
    {%- if mode not in ('auto', 'exact', 'binned') -%}
        {{ exceptions.raise_compiler_error("TRACE_UTILIZATION_PERCENTILES: '" ~ mode ~ "' is not auto, exact or binned") }}
    {%- endif -%}
    {%- if mode != 'auto' or not execute -%}
        {{ return(mode == 'binned') }}
    {%- endif -%}
    {%- set relation = load_relation(ref('int_node_metric_series')) -%}
    {%- if relation is none -%}  {#- not built yet (e.g. sqlfluff compiling against an empty warehouse) -#}
        {{ return(false) }}
    {%- endif -%}
    {%- set counted = run_query('select coalesce(sum(cells), 0) from ' ~ relation) -%}
    {{ return(counted.columns[0].values()[0] > exact_limit) }}
{%- endmacro %}
