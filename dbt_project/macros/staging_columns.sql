{#-
  Column lists of staging models that read twin file families (the same columns, another file set): the
  models keep their own CTEs and call these in their final select.
-#}

{#-
  A utilization cell (DCGM GPU or Prometheus node metric file, long) as loaded: sample times in UTC (the
  files write UTC+8) with the wall clock in the file's zone; repeated samples stay (int_node_metrics_keyed).
-#}
{% macro utilization_sample_columns() -%}
    cluster as cluster_name,
    metric,
    series,
    time as sample_time_utc,
    time_utc_offset as utc_offset,
    {{ utc_to_local('time', 'time_utc_offset') }} as sample_time_local,
    value,
    {{ lineage_columns() }}
{%- endmacro %}


{#-
  A BurstGPT request line (files 1-3 or their without-fails twins). timestamp_s counts seconds from 00:00
  of day 0 in UTC+8; a UTC calendar timestamp exists only when var burstgpt_start_date is set.
-#}
{% macro burstgpt_request_columns() -%}
    timestamp_s,
    cast(floor(timestamp_s / 86400) as {{ dbt.type_bigint() }}) as day_index,
    cast(floor(timestamp_s) - floor(timestamp_s / 86400) * 86400 as {{ dbt.type_int() }}) as second_of_day,
    {{ burstgpt_utc_timestamp('timestamp_s') }} as request_time_utc,
    session_id,
    elapsed_time as elapsed_s,
    model as model_name,
    log_type,
    request_tokens,
    response_tokens,
    total_tokens,
    {{ lineage_columns() }}
{%- endmacro %}
