{#- real, synthetic or mixed from the real and synthetic fact rows behind a number (none when neither):
    what every notebook mart says of its rows, so nothing computed from the sample reads as a real result. -#}
{% macro data_origin_label(real_rows, synthetic_rows) -%}
    case
        when coalesce({{ real_rows }}, 0) + coalesce({{ synthetic_rows }}, 0) = 0 then 'none'
        when coalesce({{ synthetic_rows }}, 0) = 0 then 'real'
        when coalesce({{ real_rows }}, 0) = 0 then 'synthetic'
        else 'mixed'
    end
{%- endmacro %}
