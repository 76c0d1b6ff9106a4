{#- The surrogate key of the "unknown" member every dimension carries. -#}
{% macro unknown_key() -%}
    '-1'
{%- endmacro %}


{#-
  Deterministic surrogate key: md5 of the natural-key columns joined with '|'; the unknown member's key
  when any of them is NULL. The same expression in a dimension and in a fact yields the same key, so facts
  need no lookup join; relationship tests prove every fact key exists in its dimension.
-#}
{% macro surrogate_key(columns) -%}
    {%- set parts = [] -%}
    {%- for column in columns -%}
        {%- do parts.append("cast(" ~ column ~ " as " ~ dbt.type_string() ~ ")") -%}
        {%- if not loop.last %}{% do parts.append("'|'") %}{% endif -%}
    {%- endfor -%}
    case
        when {% for column in columns %}{{ column }} is null{{ " or " if not loop.last }}{% endfor %}
            then {{ unknown_key() }}
        else {{ dbt.hash(dbt.concat(parts)) }}
    end
{%- endmacro %}


{#- Integer date key yyyymmdd of a date or timestamp expression; -1 (unknown) when NULL. -#}
{% macro date_key(expression) -%}
    coalesce(
        cast(
            extract(year from {{ expression }}) * 10000
            + extract(month from {{ expression }}) * 100
            + extract(day from {{ expression }})
            as {{ dbt.type_int() }}
        ),
        -1
    )
{%- endmacro %}


{#- Integer time-of-day key (second of the day, 0..86399) of a timestamp; -1 (unknown) when NULL. -#}
{% macro time_of_day_key(expression) -%}
    coalesce(
        cast(
            extract(hour from {{ expression }}) * 3600
            + extract(minute from {{ expression }}) * 60
            + floor(extract(second from {{ expression }}))
            as {{ dbt.type_int() }}
        ),
        -1
    )
{%- endmacro %}
