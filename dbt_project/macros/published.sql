{#- `left join published as <alias>`: the published number of `measure` whose scope is the expression `scope`
    and, when given, whose subject is `subject` (`published` is the model's import CTE of published_numbers). -#}
{% macro published_join(alias, measure, scope, subject=none) -%}
    left join published as {{ alias }}
        on
            {{ alias }}.measure = '{{ measure }}'
            and {{ scope }} = {{ alias }}.scope
            {%- if subject is not none %}
            and {{ subject }} = {{ alias }}.subject
            {%- endif %}
{%- endmacro %}
