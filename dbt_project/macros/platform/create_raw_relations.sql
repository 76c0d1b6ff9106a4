{#-
  Make every raw, quarantine and cells relation exist before a build, on each engine its own way.

  The sources `raw` and `quarantine` (models/staging/_raw__sources.yml) list one table per file family, the
  source `cells` two per wide family (<family>__lines, <family>__series); their lake folders are
  <lake>/<source>/<table>/_partition=<key>/*.parquet. A family with files gets a
  view over them (the same body the load asset writes); a family without any gets an empty relation typed
  from the source's column list, so staging builds on a warehouse that holds only some families.
-#}
{% macro create_raw_relations() -%}
    {{ return(adapter.dispatch('create_raw_relations', 'trace_warehouse')()) }}
{%- endmacro %}


{% macro default__create_raw_relations() -%}
    {{ exceptions.raise_compiler_error(
        "create_raw_relations: no implementation for adapter '" ~ adapter.type() ~ "' "
        ~ "(add <adapter>__create_raw_relations in dbt_project/macros/platform/)") }}
{%- endmacro %}


{#- The source tables whose relations this macro creates: (source node, lake folder). -#}
{% macro lake_sources() -%}
    {%- set found = [] -%}
    {%- for node in graph.sources.values() -%}
        {%- if node.package_name == project_name and node.source_name in ('raw', 'quarantine', 'cells') -%}
            {%- do found.append((node, lake_dir() ~ '/' ~ node.source_name ~ '/' ~ node.name)) -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(found) -}}
{%- endmacro %}


{#- `select cast(null as <type>) as <column>, ... where 1 = 0` from a source's documented columns. -#}
{% macro empty_typed_select(node) -%}
    {%- if node.columns | length == 0 -%}
        {{ exceptions.raise_compiler_error("source " ~ node.source_name ~ "." ~ node.name ~ " lists no columns") }}
    {%- endif -%}
    select
    {%- for column in node.columns.values() %}
        cast(null as {{ column.data_type }}) as {{ column.name }}{{ "," if not loop.last }}
    {%- endfor %}
    where 1 = 0
{%- endmacro %}


{% macro duckdb__create_raw_relations() -%}
    {%- if execute -%}
        {%- for node, folder in lake_sources() -%}
            {%- set pattern = (folder ~ '/_partition=*/*.parquet') | replace("'", "''") -%}
            {%- set found = run_query("select count(*) from glob('" ~ pattern ~ "')").columns[0].values()[0] -%}
            {%- do run_query("create schema if not exists " ~ node.schema) -%}
            {%- if found > 0 -%}
                {%- do run_query(
                    "create or replace view " ~ node.schema ~ "." ~ node.identifier ~ " as "
                    ~ "select * from read_parquet('" ~ pattern ~ "', hive_partitioning = true, "
                    ~ "hive_types = {'_partition': 'VARCHAR'}, union_by_name = true)") -%}
            {%- else -%}
                {%- do run_query(
                    "create view if not exists " ~ node.schema ~ "." ~ node.identifier ~ " as "
                    ~ empty_typed_select(node)) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- do adapter.commit() -%}
    {%- endif -%}
    select 1
{%- endmacro %}


{#-
  Spark: a view over the family's folder, ``parquet.`<folder>` ``; Spark discovers `_partition` from the
  `_partition=<key>` folders and keeps it a string (partitionColumnTypeInference off, profiles.yml), and
  merges the files' schemas (mergeSchema on). Spark SQL cannot test whether a folder holds files and a
  view over a missing path fails, so a probe decides: an external table over the folder with only the
  partition column, whose partitions `recover partitions` lists; it is dropped right after (external: the
  files stay; a missing folder is left behind empty, which every reader ignores). A view's body is kept as
  text by the metastore, so the lake path must be absolute when the server is not this process (Thrift).
-#}
{% macro spark__create_raw_relations() -%}
    {%- if execute -%}
        {%- set lake = lake_dir() -%}
        {%- if target.method != 'session' and not lake.startswith('/') -%}
            {{ exceptions.raise_compiler_error(
                "create_raw_relations: WAREHOUSE_DIR must be absolute on a Spark server (got '" ~ lake ~ "')") }}
        {%- endif -%}
        {%- for node, folder in lake_sources() -%}
            {%- set relation = node.schema ~ "." ~ node.identifier -%}
            {%- set probe = node.schema ~ "." ~ node.identifier ~ "__files_probe" -%}
            {%- set location = folder | replace("\\", "\\\\") | replace("'", "\\'") -%}
            {%- do run_query("create database if not exists " ~ node.schema) -%}
            {%- do run_query("drop table if exists " ~ probe) -%}
            {%- do run_query(
                "create table " ~ probe ~ " (_files_probe int, _partition string) using parquet "
                ~ "partitioned by (_partition) location '" ~ location ~ "'") -%}
            {%- do run_query("alter table " ~ probe ~ " recover partitions") -%}
            {%- set partitions = run_query("show partitions " ~ probe) -%}
            {%- do run_query("drop table if exists " ~ probe) -%}
            {%- if partitions.rows | length > 0 -%}
                {%- do run_query(
                    "create or replace view " ~ relation ~ " as select * from parquet.`" ~ folder ~ "`") -%}
            {%- else -%}
                {%- do run_query("create or replace view " ~ relation ~ " as " ~ empty_typed_select(node)) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    select 1
{%- endmacro %}
