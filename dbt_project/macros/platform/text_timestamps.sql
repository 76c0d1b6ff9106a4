{#-
  Times carried as text (the previous-work traces: their headers and formats are not verified upstream).
  A text with an offset ('2023-03-01 00:18:22+08:00') converts to UTC; a naive one is read as UTC; anything
  else (PAI writes seconds since the trace start) is NULL. The session time zone is UTC (profiles.yml).
-#}
{% macro text_to_utc_timestamp(expression) -%}
    {{ return(adapter.dispatch('text_to_utc_timestamp', 'trace_warehouse')(expression)) }}
{%- endmacro %}

{% macro default__text_to_utc_timestamp(expression) -%}
    {{ dbt.safe_cast(expression, dbt.type_timestamp()) }}
{%- endmacro %}

{% macro duckdb__text_to_utc_timestamp(expression) -%}
    cast(try_cast({{ expression }} as timestamptz) as timestamp)
{%- endmacro %}

{#- Spark casts '3600' (PAI's seconds) to the year 3600: only a text that starts with a date is parsed;
    the cast to timestamp_ltz honours the offset (naive = the session zone, UTC), the cast makes it naive UTC. -#}
{% macro spark__text_to_utc_timestamp(expression) -%}
    case
        when {{ expression }} rlike '^[0-9]{4}-[0-9]{2}-[0-9]{2}'
            then cast(try_cast({{ expression }} as timestamp_ltz) as timestamp_ntz)
    end
{%- endmacro %}


{#- The '+HH:MM' / '-HH:MM' offset at the end of a time written as text; NULL when there is none. -#}
{% macro utc_offset_of_text(expression) -%}
    {{ return(adapter.dispatch('utc_offset_of_text', 'trace_warehouse')(expression)) }}
{%- endmacro %}

{% macro default__utc_offset_of_text(expression) -%}
    nullif(regexp_extract({{ expression }}, '([+-][0-9][0-9]:[0-9][0-9])$', 1), '')
{%- endmacro %}
