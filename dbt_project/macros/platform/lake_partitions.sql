{#-
  lake_partitions (DuckDB): an incremental fact whose rows live in the Parquet lake, not in trace.duckdb.
  Its partitions are files `<lake>/models/<model>/_partition=<key>/data_0.parquet`; the relation in the
  database is a view over them, so the database file stays small and publishing a reader snapshot copies
  no rows.

  - First build, --full-refresh, or no var partition_keys: the whole model is written in one COPY
    (partitioned by `_partition`), after every file already there was emptied; readers should not query
    the model while it runs.
  - var partition_keys set: the model's window (those partitions' rows) is computed once into a temporary
    table, and each named partition's file is written from it alone by a single-file COPY: DuckDB writes
    `tmp_data_0.parquet` beside it and renames it over `data_0.parquet`, so a reader (or a process killed
    mid-write) sees the old file or the new one. A model configured `lake_partition_scans` (each row's
    partition is its source row's, so a filter on `_partition` reaches the lake's folders) skips the table:
    each named partition is written by its own scan of the model, which reads only that partition's files. A
    partition whose rows are all gone keeps an empty file; a new partition gets its folder. Every other
    partition's file is not touched (byte-identical).
  - A model configured `lake_whole_model` (logic across all its rows, such as de-duplicating a family, so no
    partition can be rebuilt alone) names every partition on every run after its first: each partition it
    has, or had, is written from the whole model by the same file-by-file COPY (lake_table_config).
  Only `data_*.parquet` files are the model's: the view and the runs never read a `tmp_*` temporary, and a
  killed run's leftover one is replaced and renamed away when its file is next written.
  The view selects the model's columns in its order and types, so the relation is what a table would be.
-#}
{% materialization lake_partitions, adapter='duckdb' -%}
    {%- set target = this.incorporate(type='view') -%}
    {%- set existing = load_cached_relation(this) -%}
    {%- set root = lake_model_dir(this.identifier) -%}
    {%- set whole = config.get('lake_whole_model', false) -%}
    {%- set replace = lake_partitions_replace(whole) -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {%- if config.get('contract').enforced -%}
        {{ get_assert_columns_equivalent(sql) }}
    {%- endif -%}
    {%- do lake_folder(lake_dir()) -%}
    {%- do lake_folder(lake_models_dir()) -%}
    {%- set columns = run_query('describe ' ~ sql).rows -%}
    {%- if replace -%}
        {{ lake_partitions_same_columns(existing, columns) }}
        {#- the window is computed once; each named partition is then written from it alone (or, for a model
            whose partition filter reaches its sources, by a scan of the model per partition) -#}
        {%- set scans = config.get('lake_partition_scans', false) -%}
        {%- set window = '(' ~ sql ~ ') as model' if scans else adapter.quote(this.identifier ~ '__lake_window') -%}
        {%- if not scans -%}
            {%- do run_query('create or replace temp table ' ~ window ~ ' as ' ~ sql) -%}
        {%- endif -%}
        {#- prefixed, so agate keeps the keys text ('0001' would become the number 1) -#}
        {%- set found = run_query("select distinct 'key:' || _partition from " ~ window).columns[0].values()
                        | map('replace', 'key:', '', 1) | list -%}
        {%- set keys = lake_partition_keys(root, found) if whole else partition_keys() -%}
        {%- for key in keys -%}
            {%- set folder = root ~ '/_partition=' ~ key -%}
            {%- set files = lake_files(folder ~ '/data_*.parquet') -%}
            {%- set rows = 'select * from ' ~ window ~ " where _partition = '" ~ key ~ "'" -%}
            {%- if key in found -%}
                {%- if files | length == 0 -%}
                    {%- do lake_folder(root) -%}
                    {%- do lake_folder(folder) -%}
                {%- endif -%}
                {%- do lake_write_file(rows, folder ~ '/data_0.parquet') -%}
            {%- endif -%}
            {#- a partition whose rows are gone, or the other files of one a full build wrote in several:
                emptied, never left stale -#}
            {%- for old in files if key not in found or not old.endswith('/data_0.parquet') -%}
                {%- do lake_write_file(rows ~ ' limit 0', old) -%}
            {%- endfor -%}
        {%- endfor -%}
        {%- if not scans -%}
            {%- do run_query('drop table ' ~ window) -%}
        {%- endif -%}
    {%- else -%}
        {#- every file is emptied first, so a partition without rows now does not keep its old ones -#}
        {%- set old = lake_files(root ~ '/*/data_*.parquet') -%}
        {%- if old | length > 0 -%}
            {%- set empty = adapter.quote(this.identifier ~ '__lake_empty') -%}
            {%- do run_query('create or replace temp table ' ~ empty ~ ' as select * from (' ~ sql ~ ') as model limit 0') -%}
            {%- for path in old -%}
                {%- do lake_write_file('select * from ' ~ empty, path) -%}
            {%- endfor -%}
            {%- do run_query('drop table ' ~ empty) -%}
        {%- endif -%}
        {%- do lake_write_partitions(sql, root) -%}
        {%- if existing is not none and not existing.is_view -%}
            {{ adapter.drop_relation(existing) }}
        {%- endif -%}
    {%- endif -%}

    {% call statement('main') -%}
        {{ lake_partitions_view(target, sql, root, columns) }}
    {%- endcall %}

    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {{ adapter.commit() }}
    {{ run_hooks(post_hooks, inside_transaction=False) }}
    {{ return({'relations': [target]}) }}
{%- endmaterialization %}


{#- Write the rows of `rows` (a SELECT with `_partition`) as one Parquet file at `path`, whose folder exists:
    DuckDB writes `tmp_<name>` in that folder and renames it to `path`, so a reader sees the old file or the
    new one, never a half-written one. -#}
{% macro lake_write_file(rows, path) -%}
    {%- do run_query(
        "copy (select * exclude (_partition) from (" ~ rows ~ ")) to '" ~ lake_quote(path) ~ "' (" ~ lake_parquet() ~ ", use_tmp_file true)") -%}
{%- endmacro %}


{#- Write the rows of `rows` under `root`, a folder `_partition=<key>/` per key with file `data_0.parquet`
    (more when DuckDB splits a large partition), the folders created as needed. -#}
{% macro lake_write_partitions(rows, root) -%}
    {%- do run_query(
        "copy (" ~ rows ~ ") to '" ~ lake_quote(root) ~ "' (" ~ lake_parquet() ~ ", partition_by (_partition), "
        ~ "overwrite_or_ignore, filename_pattern 'data_{i}')") -%}
{%- endmacro %}


{#- Make a folder exist whose parent exists (DuckDB has no mkdir: a partitioned COPY of no rows creates the
    folder it writes to and nothing in it; what the folder holds is left alone). -#}
{% macro lake_folder(path) -%}
    {%- do run_query(
        "copy (select 1 as _folder, 1 as _none where false) to '" ~ lake_quote(path)
        ~ "' (format parquet, partition_by (_folder), overwrite_or_ignore)") -%}
{%- endmacro %}


{#- The files' format: zstd, as the raw lake (about half of snappy's size here, at the same speed). -#}
{% macro lake_parquet() -%}
    {{- return('format parquet, compression zstd') -}}
{%- endmacro %}


{% macro lake_quote(text) -%}
    {{- return(text | replace("'", "''")) -}}
{%- endmacro %}


{#- Whether this run of a lake_partitions model writes partition by partition — those named by var
    partition_keys, or every one of a `whole` model (its view exists and this is not --full-refresh) — or
    the whole model in one partitioned COPY. -#}
{% macro lake_partitions_replace(whole=false) -%}
    {%- set existing = load_cached_relation(this) -%}
    {{ return((whole or partition_keys() is not none) and existing is not none and existing.is_view
              and not should_full_refresh()) }}
{%- endmacro %}


{#- Every partition of a whole-model run: those its rows have (`found`) and those with files under `root`. -#}
{% macro lake_partition_keys(root, found) -%}
    {%- set keys = found | list -%}
    {%- for path in lake_files(root ~ '/_partition=*/data_*.parquet') -%}
        {%- set key = path.split('/_partition=')[-1].split('/')[0] -%}
        {%- if key not in keys -%}
            {%- do keys.append(key) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(keys | sort) }}
{%- endmacro %}


{#- A partition-wise run writes files beside the existing ones, so the model's columns must be the view's
    (as on_schema_change 'fail' of an incremental table); a changed model needs --full-refresh. -#}
{% macro lake_partitions_same_columns(existing, columns) -%}
    {%- set now = columns | map(attribute=0) | list -%}
    {%- set before = adapter.get_columns_in_relation(existing) | map(attribute='name') | list -%}
    {%- if now != before -%}
        {{ exceptions.raise_compiler_error(
            this ~ ": the model's columns changed (" ~ before | join(', ') ~ " -> " ~ now | join(', ')
            ~ "); its lake partitions are written one by one, so rebuild them all: dbt build --full-refresh -s "
            ~ this.identifier) }}
    {%- endif -%}
{%- endmacro %}


{% macro lake_models_dir() -%}
    {{- return(lake_dir() ~ '/models') -}}
{%- endmacro %}

{% macro lake_model_dir(name) -%}
    {{- return(lake_models_dir() ~ '/' ~ name) -}}
{%- endmacro %}


{#- The files a glob matches (none: an empty list). -#}
{% macro lake_files(pattern) -%}
    {%- set found = run_query("select file from glob('" ~ lake_quote(pattern) ~ "') order by file") -%}
    {{ return(found.columns[0].values() | list if found is not none else []) }}
{%- endmacro %}


{#- The model's relation: its columns (`describe` rows of its SQL), in its order and types, over the
    partition files; with no file yet (a model without rows), the same columns with no rows. -#}
{% macro lake_partitions_view(target, sql, root, columns) -%}
    {%- set casts = [] -%}
    {%- for row in columns -%}
        {%- do casts.append('cast(' ~ adapter.quote(row[0]) ~ ' as ' ~ row[1] ~ ') as ' ~ adapter.quote(row[0])) -%}
    {%- endfor -%}
    create or replace view {{ target }} as
    {% if lake_files(root ~ '/*/data_*.parquet') | length > 0 -%}
    select {{ casts | join(', ') }}
    from read_parquet('{{ lake_quote(root ~ '/*/data_*.parquet') }}', hive_partitioning = true, hive_types = {'_partition': 'VARCHAR'})
    {%- else -%}
    select {{ casts | join(', ') }} from ({{ sql }}) as model where 1 = 0
    {%- endif %}
{%- endmacro %}
