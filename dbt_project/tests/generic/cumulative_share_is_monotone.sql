{#-
  A CDF on a grid: fails on every row whose `column_name` is outside [0, 1] or below the value at the
  previous grid point of its group (`group_by` columns, ordered by `order_by`); with `ends_at_one`, also on
  every group whose last grid point is not 1 (within 1e-9).
-#}
{% test cumulative_share_is_monotone(model, column_name, group_by, order_by, ends_at_one=false) %}

with

ordered as (
    select
        {{ group_by | join(', ') }},
        {{ order_by }} as grid_point,
        {{ column_name }} as share,
        lag({{ column_name }}) over (
            partition by {{ group_by | join(', ') }} order by {{ order_by }}
        ) as previous_share,
        row_number() over (
            partition by {{ group_by | join(', ') }} order by {{ order_by }} desc
        ) as from_the_end
    from {{ model }}
),

final as (
    select * from ordered
    where
        share is null
        or share < 0
        or share > 1 + 1e-9
        or share < previous_share - 1e-9
        {%- if ends_at_one %}
        or (from_the_end = 1 and abs(share - 1) > 1e-9)
        {%- endif %}
)

select * from final

{% endtest %}
