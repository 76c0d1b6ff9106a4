{#- Fails on every row whose `column_name` is below 0 (a count or a level that cannot be negative). -#}
{% test non_negative(model, column_name) %}

select * from {{ model }}
where {{ column_name }} < 0

{% endtest %}
