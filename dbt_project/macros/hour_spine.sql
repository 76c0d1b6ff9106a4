{#- The body of a CTE: every (file_number, release, hour_index) from each file's first to its last hour in
    `counted` (a relation with those columns), hours without rows included. At most 16,384 hours a file. -#}
{% macro file_hour_spine(counted) -%}
    with numbers as (
        {{ dbt.generate_series(16384) }}
    ),

    file_hours as (
        select
            file_number,
            release,
            min(hour_index) as first_hour_index,
            max(hour_index) as last_hour_index
        from {{ counted }}
        group by file_number, release
    )

    select
        file_hours.file_number,
        file_hours.release,
        file_hours.first_hour_index + numbers.generated_number - 1 as hour_index
    from file_hours
    cross join numbers
    where file_hours.first_hour_index + numbers.generated_number - 1 <= file_hours.last_hour_index
{%- endmacro %}
