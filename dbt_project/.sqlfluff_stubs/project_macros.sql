{#- Stand-ins for this project's macros (dbt_project/macros/) for sqlfluff's jinja templater. -#}
{% macro unknown_key() %}'-1'{% endmacro %}
{% macro surrogate_key(columns) %}md5({{ columns | join(" || '|' || ") }}){% endmacro %}
{% macro date_key(expression) %}coalesce(cast(strftime({{ expression }}, '%Y%m%d') as integer), -1){% endmacro %}
{% macro time_of_day_key(expression) %}coalesce(cast(epoch({{ expression }}) % 86400 as integer), -1){% endmacro %}
{% macro type_double() %}double{% endmacro %}
{% macro percentile_cont(expression, fraction) %}quantile_cont({{ expression }}, {{ fraction }}){% endmacro %}
{% macro count_where(condition) %}cast(sum(case when {{ condition }} then 1 else 0 end) as bigint){% endmacro %}
{% macro utc_to_local(utc_column, offset_column) %}({{ utc_column }} + interval 8 hour){% endmacro %}
{% macro burstgpt_utc_timestamp(timestamp_s) %}cast(null as timestamp){% endmacro %}
{% macro burstgpt_local_date(day_index) %}cast(null as date){% endmacro %}
{% macro first_present_column(relation, candidates, data_type) %}cast({{ candidates[0] }} as {{ data_type }}){% endmacro %}
{% macro text_to_utc_timestamp(expression) %}cast({{ expression }} as timestamp){% endmacro %}
{% macro utc_offset_of_text(expression) %}cast(null as varchar){% endmacro %}
{% macro partition_window(column='_partition') %}1 = 1{% endmacro %}
{% macro stg_previous_work(family, cluster_name) %}select '{{ cluster_name }}' as cluster_name from {{ source('raw', family) }}{% endmacro %}
{% macro stg_burstgpt_requests(family) %}select 1 as x from {{ source('raw', family) }}{% endmacro %}
{% macro stg_utilization_metrics(family) %}select 1 as x from {{ source('raw', family) }}{% endmacro %}
{% macro passed_rows(family, keys=none) %}passed as (select * from {{ source('raw', family) }}){% endmacro %}
{% macro percentiles_cont(expression, fractions) %}quantile_cont({{ expression }}, [{{ fractions | join(', ') }}]){% endmacro %}
{% macro array_at(array, index) %}{{ array }}[{{ index }}]{% endmacro %}
