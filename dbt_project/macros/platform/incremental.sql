{#-
  Incremental facts replace whole partitions (`_partition`, the lake's partition key) on every engine:
  DuckDB writes them as Parquet files in the lake, the relation a view over them (lake_partitions.sql); Spark
  insert_overwrite into a table partitioned by `_partition` (dynamic overwrite: only the partitions the new
  rows carry; `merge` is Delta/Iceberg-only); any other engine delete+insert on unique_key `_partition`.
  Before the rows go in, `clear_partition_window` empties the window — the partitions named by var
  partition_keys, or the whole table when none are named — so a partition whose upstream rows are all gone
  ends up empty rather than stale. A model uses: {{ config(**partition_replace_config()) }}
-#}
{#- row_wise: each row's partition is that of the source row it comes from (a projection, no grouping or
    window across rows), so a filter on `_partition` reaches the sources' folders; on DuckDB a refresh then
    writes each partition from a scan of its own files (lake_partitions.sql, `lake_partition_scans`). -#}
{% macro partition_replace_config(row_wise=false) -%}
    {{ return(adapter.dispatch('partition_replace_config', 'trace_warehouse')(row_wise)) }}
{%- endmacro %}

{% macro duckdb__partition_replace_config(row_wise=false) -%}
    {{ return({"materialized": "lake_partitions", "lake_partition_scans": row_wise}) }}
{%- endmacro %}

{% macro default__partition_replace_config(row_wise=false) -%}
    {{ return({
        'materialized': 'incremental',
        'incremental_strategy': 'delete+insert',
        'unique_key': '_partition',
        'on_schema_change': 'fail',
        'pre_hook': ["{{ clear_partition_window() }}"],
    }) }}
{%- endmacro %}

{% macro spark__partition_replace_config(row_wise=false) -%}
    {{ return({
        'materialized': 'incremental',
        'incremental_strategy': 'insert_overwrite',
        'partition_by': ['_partition'],
        'file_format': 'parquet',
        'on_schema_change': 'fail',
        'pre_hook': ["{{ clear_partition_window() }}"],
    }) }}
{%- endmacro %}


{#-
  A model computed from all its rows at once (a family's de-duplication), kept out of trace.duckdb: on DuckDB
  a lake_partitions model that writes every partition on every run (`lake_whole_model`; the database holds a
  view), elsewhere a table. A model uses: {{ config(**lake_table_config()) }}
-#}
{% macro lake_table_config() -%}
    {{ return(adapter.dispatch('lake_table_config', 'trace_warehouse')()) }}
{%- endmacro %}

{% macro duckdb__lake_table_config() -%}
    {{ return({"materialized": "lake_partitions", "lake_whole_model": true}) }}
{%- endmacro %}

{% macro default__lake_table_config() -%}
    {{ return({"materialized": "table"}) }}
{%- endmacro %}


{#- Statement(s) that empty the window of an incremental run (nothing on a first or full-refresh run). -#}
{% macro clear_partition_window() -%}
    {%- if is_incremental() -%}
        {{ return(adapter.dispatch('clear_partition_window', 'trace_warehouse')(this, partition_keys())) }}
    {%- endif -%}
{%- endmacro %}

{% macro default__clear_partition_window(relation, keys) -%}
    delete from {{ relation }}
    {%- if keys is not none %} where _partition in ({{ partition_key_literals(keys) }}){% endif %}
{%- endmacro %}

{% macro spark__clear_partition_window(relation, keys) -%}
    {%- if keys is none -%}
        truncate table {{ relation }}
    {%- else -%}
        alter table {{ relation }} drop if exists
        {%- for key in keys %} partition (_partition = {{ partition_key_literals([key]) }}){{ "," if not loop.last }}
        {%- endfor %}
    {%- endif -%}
{%- endmacro %}
