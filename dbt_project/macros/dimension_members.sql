{#- The distinct values of `column` over `relations` (CTE names): `select <column> from <relation>` each,
    joined by `union`. NULL stays a value; the caller drops it. -#}
{% macro distinct_values(column, relations) -%}
    {%- for relation in relations %}
    select {{ column }} from {{ relation }}
    {%- if not loop.last %}
    union
    {%- endif %}
    {%- endfor %}
{%- endmacro %}


{#-
  The members of a dimension whose natural key `column` has documented values: one row per non-NULL value
  in the CTE `values` (surrogate key `key`), then `attributes` (name: SQL expression, in order) and
  is_documented (the CTE `documented` lists the value); plus the unknown member, 'unknown' in the natural
  key and in every attribute. Both CTEs have the column `column`.
-#}
{% macro documented_members(key, column, values, documented, attributes={}) -%}
    select
        {{ surrogate_key([values ~ '.' ~ column]) }} as {{ key }},
        {{ values }}.{{ column }},
        {%- for name, expression in attributes.items() %}
        {{ expression }} as {{ name }},
        {%- endfor %}
        {{ documented }}.{{ column }} is not null as is_documented
    from {{ values }}
    left join {{ documented }} on {{ values }}.{{ column }} = {{ documented }}.{{ column }}
    where {{ values }}.{{ column }} is not null

    union all

    select
        {{ unknown_key() }} as {{ key }},
        'unknown' as {{ column }},
        {%- for name in attributes %}
        'unknown' as {{ name }},
        {%- endfor %}
        false as is_documented
{%- endmacro %}
