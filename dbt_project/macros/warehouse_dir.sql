{#- $WAREHOUSE_DIR as dbt sees it: absolute, or relative to the repository root (dbt runs in dbt_project/),
    the same rule as pipelines/settings.py and profiles.yml. -#}
{% macro warehouse_dir() -%}
    {%- set configured = env_var('WAREHOUSE_DIR', '') | trim or 'warehouse' -%}
    {{- return(configured if configured.startswith('/') else '../' ~ configured) -}}
{%- endmacro %}

{% macro lake_dir() -%}
    {{- return(var('lake_dir', warehouse_dir() ~ '/lake')) -}}
{%- endmacro %}
