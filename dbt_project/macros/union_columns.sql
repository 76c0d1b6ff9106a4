{#-
  The relations as one: `select <columns>` of each, unioned (union all). The relations have those columns
  with the same names and types (each job staging model maps its file to the shared shape); other columns
  a relation has are left out.
-#}
{% macro union_columns(relations, columns) -%}
    {%- for relation in relations %}
    select
        {{ columns | join(',\n        ') }}
    from {{ relation }}
    {%- if not loop.last %}

    union all
    {% endif -%}
    {%- endfor %}
{%- endmacro %}


{#- `cast(<column> as <type>) as <column>, ...` for a list of (column, type); nulls: each a typed null. -#}
{% macro cast_columns(columns, nulls=false) -%}
    {%- for column, type in columns %}
        cast({{ 'null' if nulls else column }} as {{ type }}) as {{ column }}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}
