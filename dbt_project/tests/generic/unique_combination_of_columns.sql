{#- Fails on every combination of the given columns that occurs more than once (NULLs compare equal). -#}
{% test unique_combination_of_columns(model, combination_of_columns) %}

with

grouped as (
    select
        {{ combination_of_columns | join(', ') }},
        count(*) as occurrences
    from {{ model }}
    group by {{ combination_of_columns | join(', ') }}
),

final as (
    select * from grouped
    where occurrences > 1
)

select * from final

{% endtest %}
