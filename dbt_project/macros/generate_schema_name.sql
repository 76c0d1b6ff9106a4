{#- Layer schemas by their own names (staging, intermediate, marts, analysis), not <target>_<name>,
    so readers query marts.fct_job on every target. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}
        {{ target.schema }}
    {%- else -%}
        {{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}
