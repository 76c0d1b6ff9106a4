{#-
  For header-driven families (previous-work traces, IPMI) whose columns depend on the file's header:
  the first of `candidates` that the relation has, cast to `data_type`; NULL of that type when none is
  there (or while parsing, when the warehouse is not consulted).
-#}
{% macro first_present_column(relation, candidates, data_type) -%}
    {%- set ns = namespace(found=none) -%}
    {%- if execute -%}
        {%- set present = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
        {%- for candidate in candidates -%}
            {%- if ns.found is none and candidate in present -%}
                {%- set ns.found = candidate -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if ns.found is none -%}
        cast(null as {{ data_type }})
    {%- else -%}
        cast({{ ns.found }} as {{ data_type }})
    {%- endif -%}
{%- endmacro %}
