{#- fct_request's rows with their model name and log type; `requests`, `models` and `log_types` are the
    model's import CTEs of fct_request, dim_model and dim_log_type. -#}
{% macro labelled_requests() -%}
    select
        requests.*,
        models.model_name,
        log_types.log_type
    from requests
    inner join models on requests.model_key = models.model_key
    inner join log_types on requests.log_type_key = log_types.log_type_key
{%- endmacro %}
