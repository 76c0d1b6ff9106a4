{#-
  dbt-spark's dateadd/datediff go through to_unix_timestamp/to_timestamp and int casts: they do not accept
  TIMESTAMP_NTZ everywhere (the type of every timestamp here, see profiles.yml) and cut intervals to 32
  bits. These are the same operations as dbt-duckdb's: whole units added; the number of unit boundaries
  between two times.
-#}
{% macro spark__dateadd(datepart, interval, from_date_or_timestamp) -%}
    {%- set unit = datepart | lower -%}
    {%- if unit == 'quarter' -%}
        timestampadd(month, cast({{ interval }} as bigint) * 3, {{ from_date_or_timestamp }})
    {%- else -%}
        timestampadd({{ unit }}, cast({{ interval }} as bigint), {{ from_date_or_timestamp }})
    {%- endif -%}
{%- endmacro %}


{% macro spark__datediff(first_date, second_date, datepart) -%}
    {%- set unit = datepart | lower -%}
    {%- if unit in ('second', 'minute', 'hour') -%}
        {%- set seconds = {'second': 1, 'minute': 60, 'hour': 3600}[unit] -%}
        (floor(unix_micros(cast({{ second_date }} as timestamp_ltz)) / {{ seconds * 1000000 }})
            - floor(unix_micros(cast({{ first_date }} as timestamp_ltz)) / {{ seconds * 1000000 }}))
    {%- elif unit == 'day' -%}
        datediff(cast({{ second_date }} as date), cast({{ first_date }} as date))
    {%- else -%}
        timestampdiff({{ unit }}, {{ first_date }}, {{ second_date }})
    {%- endif -%}
{%- endmacro %}


{#- Whole hours since 1970-01-01 00:00:00 of a UTC timestamp (the hour_index of the utilization hours). -#}
{% macro epoch_hour(expression) -%}
    {{ return(adapter.dispatch('epoch_hour', 'trace_warehouse')(expression)) }}
{%- endmacro %}


{% macro default__epoch_hour(expression) -%}
    cast(floor({{ epoch_seconds(expression) }} / 3600) as {{ dbt.type_bigint() }})
{%- endmacro %}


{#- DuckDB: from the timestamp's microseconds, without dbt.datediff's subtraction of two timestamps. -#}
{% macro duckdb__epoch_hour(expression) -%}
    cast(floor(epoch_us({{ expression }}) / 3600000000) as {{ dbt.type_bigint() }})
{%- endmacro %}
