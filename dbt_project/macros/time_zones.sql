{#- Minutes east of UTC written in a source offset like '+08:00' or '-05:30'; 0 for a naive time (NULL). -#}
{% macro utc_offset_minutes(offset_column) -%}
    case
        when {{ offset_column }} is null then 0
        else
            (case when substring({{ offset_column }}, 1, 1) = '-' then -1 else 1 end)
            * (
                cast(substring({{ offset_column }}, 2, 2) as {{ dbt.type_int() }}) * 60
                + cast(substring({{ offset_column }}, 5, 2) as {{ dbt.type_int() }})
            )
    end
{%- endmacro %}


{#- The wall-clock time in the source's own zone, from a UTC timestamp and the offset the file wrote. -#}
{% macro utc_to_local(utc_column, offset_column) -%}
    {{ dbt.dateadd('minute', utc_offset_minutes(offset_column), utc_column) }}
{%- endmacro %}


{#- BurstGPT's clock: seconds since 00:00 of day 0 in UTC+8. -#}
{% macro burstgpt_utc_offset_s() -%}
    {{ return(8 * 3600) }}
{%- endmacro %}


{#-
  The UTC calendar timestamp of a BurstGPT `timestamp_s`, or NULL when var burstgpt_start_date is empty
  (the calendar date of day 0 is not published upstream).
-#}
{% macro burstgpt_utc_timestamp(timestamp_s) -%}
    {%- set start_date = var('burstgpt_start_date', '') | string | trim -%}
    {%- if start_date -%}
        {{ dbt.dateadd(
            'second',
            'floor(' ~ timestamp_s ~ ') - ' ~ burstgpt_utc_offset_s(),
            "cast('" ~ start_date ~ " 00:00:00' as " ~ dbt.type_timestamp() ~ ")") }}
    {%- else -%}
        cast(null as {{ dbt.type_timestamp() }})
    {%- endif -%}
{%- endmacro %}


{#- The trace-clock (UTC+8) calendar date of a BurstGPT day index, or NULL without burstgpt_start_date. -#}
{% macro burstgpt_local_date(day_index) -%}
    {%- set start_date = var('burstgpt_start_date', '') | string | trim -%}
    {%- if start_date -%}
        cast({{ dbt.dateadd('day', day_index, "cast('" ~ start_date ~ "' as date)") }} as date)
    {%- else -%}
        cast(null as date)
    {%- endif -%}
{%- endmacro %}
