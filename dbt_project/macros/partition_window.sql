{#-
  The lake partition keys a build replaces: var partition_keys, a list of keys (e.g. ["0001", "0002"], or one
  key as a string), else the environment variable TRACE_PARTITION_KEYS, the same list as JSON (what the
  Dagster asset passes). Set, an incremental model reads and replaces only those partitions; unset (the
  default), or on --full-refresh, everything is (re)built. Keys are text, as `_partition` is on every engine.
  The environment variable is read when dbt executes, never while it parses: a var is part of dbt's parse
  state (a new value parses the whole project again), an environment variable that no file reads while
  parsing is not, so a build of other partitions reuses the last parse.
-#}
{% macro partition_keys() -%}
    {%- set keys = var('partition_keys', none) -%}
    {%- if keys is none and execute -%}
        {%- set keys = fromjson(env_var('TRACE_PARTITION_KEYS', '') or 'null') -%}
    {%- endif -%}
    {%- if keys is none or keys == '' or (keys is iterable and keys is not string and keys | length == 0) -%}
        {{ return(none) }}
    {%- elif keys is string -%}
        {%- set keys = [keys] -%}
    {%- endif -%}
    {%- set keys = keys | map('string') | list -%}
    {%- for key in keys if not modules.re.match('^[A-Za-z0-9_.:-]+$', key) -%}
        {{ exceptions.raise_compiler_error("var partition_keys: not a partition key: '" ~ key ~ "'") }}
    {%- endfor -%}
    {{ return(keys) }}
{%- endmacro %}


{#- 'a', 'b': the keys as SQL string literals (partition_keys() admits no quote). -#}
{% macro partition_key_literals(keys) -%}
    {%- for key in keys -%}
        '{{ key }}'{{ ", " if not loop.last }}
    {%- endfor -%}
{%- endmacro %}


{#- The predicate that selects an incremental model's window from upstream: `column` in the keys on an
    incremental run with var partition_keys set, else true (a first run or --full-refresh reads all). -#}
{% macro partition_window(column='_partition') -%}
    {%- if partition_keys() is not none and replaces_partitions() -%}
        {{ named_partitions(column) }}
    {%- else -%}
        1 = 1
    {%- endif -%}
{%- endmacro %}


{#- Whether this run of the model replaces only the partitions named by var partition_keys: an incremental
    table (dbt's is_incremental) or a lake model that exists (macros/platform/lake_partitions.sql). -#}
{% macro replaces_partitions() -%}
    {%- if config.get('materialized') == 'lake_partitions' -%}
        {{ return(lake_partitions_replace()) }}
    {%- endif -%}
    {{ return(is_incremental()) }}
{%- endmacro %}


{#- What a data test of a partition-replacing model checks: the partitions var partition_keys names (the ones
    this run rebuilt), or everything when it is unset, so the test reads what changed, not the whole lake. -#}
{% macro named_partitions(column='_partition') -%}
    {%- set keys = partition_keys() -%}
    {%- if keys is not none -%}
        {{ column }} in ({{ partition_key_literals(keys) }})
    {%- else -%}
        1 = 1
    {%- endif -%}
{%- endmacro %}
