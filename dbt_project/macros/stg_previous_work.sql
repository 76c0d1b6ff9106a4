{#-
  The staging body shared by the three previous-work traces (Helios, Philly, PAI): one row per job line
  that passed validation. Their headers are not verified upstream: the typed numeric, state and time columns
  are always there (NULL when absent); id, user and type come from whichever usual header name the file has
  (a job without an id column is named <file>#<line>). Times are text: a datetime becomes UTC (naive = UTC);
  a number is seconds since the trace start (PAI).
-#}
{% macro stg_previous_work(family, cluster_name) -%}
{%- set raw_relation = source('raw', family) %}
with

{{ passed_rows(family) }},

final as (
    select
        '{{ cluster_name }}' as cluster_name,
        coalesce(
            {{ first_present_column(raw_relation, ['job_id', 'jobid', 'job_name', 'id'], dbt.type_string()) }},
            {{ dbt.concat(['_source_file', "'#'", 'cast(_row_number as ' ~ dbt.type_string() ~ ')']) }}
        ) as job_id,
        {{ first_present_column(raw_relation, ['user', 'user_id', 'user_name', 'uid'], dbt.type_string()) }}
            as user_name,
        {{ first_present_column(raw_relation, ['type', 'job_type'], dbt.type_string()) }} as job_type,
        state as source_state,
        status as source_status,
        node_num,
        gpu_num,
        cpu_num,
        plan_gpu,
        plan_cpu,
        {{ text_to_utc_timestamp('submit_time') }} as submit_time_utc,
        {{ text_to_utc_timestamp('start_time') }} as start_time_utc,
        {{ text_to_utc_timestamp('end_time') }} as end_time_utc,
        {{ dbt.safe_cast('submit_time', type_double()) }} as submit_offset_s,
        {{ dbt.safe_cast('start_time', type_double()) }} as start_offset_s,
        {{ dbt.safe_cast('end_time', type_double()) }} as end_offset_s,
        {{ utc_offset_of_text('submit_time') }} as utc_offset,
        {{ utc_to_local(text_to_utc_timestamp('submit_time'), utc_offset_of_text('submit_time')) }}
            as submit_time_local,
        duration as reported_duration_s,
        queue as reported_queue_s,
        wait_time as reported_wait_time_s,
        _source_file,
        _row_number,
        _loaded_at,
        _data_origin,
        _partition
    from passed
)

select * from final
{%- endmacro %}
