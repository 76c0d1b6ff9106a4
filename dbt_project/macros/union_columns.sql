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
