{#-
  The cluster and metric pairs of the utilization samples in the partition window, each with its metric's
  grid (seed utilization_grid) as SQL literals: a list of {cluster, level, metric, kind ('linear', 'log2', or
  none for a metric without a grid), scale, grid_max, bins, slope, intercept}. A sample's position on the
  grid is value * slope + intercept (log2(value) * slope + intercept on a log2 grid): 0 at grid_min, `bins` at
  grid_max. int_utilization_hour_bins scans each pair on its own, with its constants written into the query:
  it groups by two integers, not by two strings and a join to the grid per sample. The numbers come back as
  the engine's shortest text for a double, which reads back as the same double.

  Asked when dbt executes, of int_node_metric_series (a few rows per series and day); [] while dbt parses, or
  before that model is built (sqlfluff compiles against an empty warehouse). A model that calls it cannot be
  unit tested on it (an introspective query): its unit test gives the pairs as a macro override.
-#}
{% macro utilization_bin_branches() -%}
    {%- set series = ref('int_node_metric_series') -%}
    {%- set grid = ref('utilization_grid') -%}
    {%- if not execute or load_relation(series) is none or load_relation(grid) is none -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set query -%}
        with

        pairs as (
            select distinct
                cluster_name,
                metric_level,
                metric
            from {{ series }}
            where {{ partition_window() }}
        )

        select
            pairs.cluster_name,
            pairs.metric_level,
            pairs.metric,
            grid.grid_kind,
            cast(cast(grid.scale as {{ type_double() }}) as {{ dbt.type_string() }}) as scale,
            cast(cast(grid.grid_max as {{ type_double() }}) as {{ dbt.type_string() }}) as grid_max,
            cast(grid.bins as {{ dbt.type_int() }}) as bins,
            cast(case
                when grid.grid_kind = 'linear' then grid.bins * grid.scale / (grid.grid_max - grid.grid_min)
                when grid.grid_kind = 'log2' then grid.bins / log2(grid.grid_max / grid.grid_min)
            end as {{ dbt.type_string() }}) as slope,
            cast(case
                when grid.grid_kind = 'linear' then -grid.bins * grid.grid_min / (grid.grid_max - grid.grid_min)
                when grid.grid_kind = 'log2'
                    then (log2(grid.scale) - log2(grid.grid_min)) * grid.bins / log2(grid.grid_max / grid.grid_min)
            end as {{ dbt.type_string() }}) as intercept
        from pairs
        left join {{ grid }} as grid on pairs.metric = grid.metric
        order by pairs.cluster_name, pairs.metric
    {%- endset -%}
    {%- set branches = [] -%}
    {%- for row in run_query(query).rows -%}
        {%- for text in row if text is string and "'" in text -%}
            {{ exceptions.raise_compiler_error("utilization_bin_branches: a quote in " ~ text) }}
        {%- endfor -%}
        {%- do branches.append({
            'cluster': row[0], 'level': row[1], 'metric': row[2], 'kind': row[3], 'scale': row[4],
            'grid_max': row[5], 'bins': row[6], 'slope': row[7], 'intercept': row[8],
        }) -%}
    {%- endfor -%}
    {{ return(branches) }}
{%- endmacro %}


{#- A double from its text (utilization_bin_branches' numbers), exact on every engine. -#}
{% macro double_literal(text) -%}
    cast('{{ text }}' as {{ type_double() }})
{%- endmacro %}
