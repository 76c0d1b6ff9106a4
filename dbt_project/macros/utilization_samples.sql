{#- The utilization families and their metric levels (DCGM GPU and Prometheus node metrics). -#}
{% macro utilization_families() -%}
    {{ return([('acme__gpu_metrics', 'gpu'), ('acme__node_metrics', 'node')]) }}
{%- endmacro %}


{#-
  The union of one select per utilization family: the caller block is the select over the family's relation
  (given with its metric level); relations: [(relation, level)], one per family; windowed: each select only
  in the partition window of an incremental model (macros/partition_window.sql).
-#}
{% macro union_utilization(relations, windowed=true) -%}
    {%- for relation, level in relations %}
    {{ caller(relation, level) }}
    {%- if windowed %}
    where {{ partition_window() }}
    {%- endif %}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}


{#- The relations of source `source_name` (table <family><suffix>) of the utilization families, for
    union_utilization. -#}
{% macro utilization_sources(source_name, suffix='') -%}
    {%- set found = [] -%}
    {%- for family, level in utilization_families() -%}
        {%- do found.append((source(source_name, family ~ suffix), level)) -%}
    {%- endfor -%}
    {{ return(found) }}
{%- endmacro %}


{#- The staging models of the utilization families: [(relation, level)], one per family. -#}
{% macro utilization_staged() -%}
    {%- set found = [] -%}
    {%- for family, level in utilization_families() -%}
        {%- do found.append((ref('stg_' ~ family), level)) -%}
    {%- endfor -%}
    {{ return(found) }}
{%- endmacro %}


{#-
  Every staged utilization sample (DCGM GPU and Prometheus node metrics, one column list): the body of a CTE.
  windowed: only the partition window of an incremental model (macros/partition_window.sql).
-#}
{% macro utilization_samples(windowed=true) -%}
    {%- call(relation, level) union_utilization(utilization_staged(), windowed) %}
    select * from {{ relation }}
    {%- endcall %}
{%- endmacro %}


{#-
  The keys of the samples that may repeat another, as two CTEs for a `with`: repeated_lines (_partition,
  _row_number: a line whose time another line of its cluster and metric repeats that day) and shared_series
  (_partition, series: a series that day that names the same node and GPU as another of its cluster and
  metric). Every repeat of a sample is among them; a sample outside both passes as it is. Both are per lake
  partition (the UTC date of the sample time), so a partition-wise build of int_node_metric_repeats and the
  view that reads it agree on which samples are its, and a sample is matched on its partition column, which
  the scan of a Parquet file gives as a constant, not on an expression of its time. lines,
  partition_series, series: the CTE names of int_node_metric_lines, int_node_metric_series and
  int_node_series.
-#}
{% macro may_repeat_keys(lines='lines', partition_series='partition_series', series='series') -%}
repeated_lines as (
    select distinct
        _partition,
        _row_number
    from {{ lines }}
    where time_repeated
),

series_nodes as (
    select
        {{ partition_series }}._partition,
        {{ partition_series }}.series,
        count(*) over (
            partition by
                {{ partition_series }}._partition,
                {{ partition_series }}.cluster_name,
                {{ partition_series }}.metric,
                {{ series }}.node_id,
                {{ series }}.gpu_index
        ) as series_of_node
    from {{ partition_series }}
    inner join {{ series }}
        on
            {{ partition_series }}.cluster_name = {{ series }}.cluster_name
            and {{ partition_series }}.metric = {{ series }}.metric
            and {{ partition_series }}.series = {{ series }}.series
),

shared_series as (
    select distinct
        _partition,
        series
    from series_nodes
    where series_of_node > 1
)
{%- endmacro %}


{#- The two left joins that mark a sample of `samples` (a CTE of staged samples) that may repeat another:
    then repeated_lines._row_number or shared_series.series is not null (may_repeat_keys' CTEs). -#}
{% macro join_may_repeat_keys(samples='samples') -%}
    left join repeated_lines
        on
            {{ samples }}._partition = repeated_lines._partition
            and {{ samples }}._row_number = repeated_lines._row_number
    left join shared_series
        on
            {{ samples }}._partition = shared_series._partition
            and {{ samples }}.series = shared_series.series
{%- endmacro %}


{#-
  What the load counted of the utilization files (source cells, pipelines/lake/cells.py), in the partition
  window, with the samples' column names: kind 'lines' (cluster_name, metric_level, metric, _source_file,
  _row_number, sample_time_utc, _data_origin, cells, _partition: one row per line with a cell in a lake file)
  or 'series' (cluster_name, metric_level, metric, _source_file, series, cells, _partition: one row per
  series with a cell in a lake file).
-#}
{% macro counted_cells(kind) -%}
    {%- call(relation, level) union_utilization(utilization_sources('cells', '__' ~ kind)) %}
    select
        cluster as cluster_name,
        '{{ level }}' as metric_level,
        metric,
        _source_file,
        {%- if kind == 'lines' %}
        _row_number,
        time as sample_time_utc,
        _data_origin,
        {%- else %}
        series,
        {%- endif %}
        cells,
        _partition
    from {{ relation }}
    {%- endcall %}
{%- endmacro %}


{#- The utilization cells validation quarantined, in the partition window: (_source_file, _row_number, series,
    _partition), once each whatever the rules it broke. -#}
{% macro quarantined_cells() -%}
    {%- call(relation, level) union_utilization(utilization_sources('quarantine')) %}
    select distinct
        _source_file,
        _row_number,
        series,
        _partition
    from {{ relation }}
    {%- endcall %}
{%- endmacro %}
