{#-
  The five job staging models (Seren, Kalos, Helios, Philly, PAI) emit one job shape, which
  int_jobs_unioned unions by column name: cluster_name, job_id, user_name, job_type, job_state (Slurm-like
  states), source_state (as written), node_num (bigint), gpu_num, cpu_num, mem_per_pod_gb,
  shared_mem_per_pod (double; NULL where the file has none), submit/start/end_time_utc, utc_offset,
  submit/start/end_offset_s (seconds since the trace start, PAI; else NULL), reported_duration_s,
  reported_queue_s, reported_gpu_time_s and the lineage columns. A model may add its own columns.

  Models that read one file format share its column list below and write what differs themselves.
-#}

{#-
  The AcmeTrace job files (trace_seren.csv, trace_kalos.csv): typed upstream, times in UTC with the offset
  the file wrote on submit_time; no trace-start offsets. Memory columns are the model's (Kalos only).
-#}
{% macro acme_job_columns() -%}
    cast(job_id as {{ dbt.type_string() }}) as job_id,
    user as user_name,
    type as job_type,
    state as job_state,
    state as source_state,
    cast(node_num as {{ dbt.type_bigint() }}) as node_num,
    cast(gpu_num as {{ type_double() }}) as gpu_num,
    cast(cpu_num as {{ type_double() }}) as cpu_num,
    submit_time as submit_time_utc,
    start_time as start_time_utc,
    end_time as end_time_utc,
    submit_time_utc_offset as utc_offset,
    {{ utc_to_local('submit_time', 'submit_time_utc_offset') }} as submit_time_local,
    cast(null as {{ type_double() }}) as submit_offset_s,
    cast(null as {{ type_double() }}) as start_offset_s,
    cast(null as {{ type_double() }}) as end_offset_s,
    duration as reported_duration_s,
    queue as reported_queue_s,
    gpu_time as reported_gpu_time_s,
    {{ lineage_columns() }}
{%- endmacro %}


{#-
  The previous-work traces (Helios, Philly, PAI), whose headers are not verified upstream: job_id, user_name
  and job_type from whichever usual header name the file has (a job without an id column is named
  <file>#<line>). Times are text: a datetime becomes UTC (naive = UTC) with the offset it wrote; a number
  is seconds since the trace start (PAI), kept as *_offset_s. No memory or GPU-time columns. gpu_num,
  cpu_num and queue name the columns the model reads them from (PAI maps its own). The states are the
  model's (job_state, source_state).
-#}
{% macro previous_work_job_columns(raw_relation, gpu_num='gpu_num', cpu_num='cpu_num', queue='queue') -%}
    coalesce(
        {{ first_present_column(raw_relation, ['job_id', 'jobid', 'job_name', 'id'], dbt.type_string()) }},
        {{ dbt.concat(['_source_file', "'#'", 'cast(_row_number as ' ~ dbt.type_string() ~ ')']) }}
    ) as job_id,
    {{ first_present_column(raw_relation, ['user', 'user_id', 'user_name', 'uid'], dbt.type_string()) }}
        as user_name,
    {{ first_present_column(raw_relation, ['type', 'job_type'], dbt.type_string()) }} as job_type,
    cast(node_num as {{ dbt.type_bigint() }}) as node_num,
    {{ gpu_num }} as gpu_num,
    {{ cpu_num }} as cpu_num,
    cast(null as {{ type_double() }}) as mem_per_pod_gb,
    cast(null as {{ type_double() }}) as shared_mem_per_pod,
    {{ text_to_utc_timestamp('submit_time') }} as submit_time_utc,
    {{ text_to_utc_timestamp('start_time') }} as start_time_utc,
    {{ text_to_utc_timestamp('end_time') }} as end_time_utc,
    {{ utc_offset_of_text('submit_time') }} as utc_offset,
    {{ utc_to_local(text_to_utc_timestamp('submit_time'), utc_offset_of_text('submit_time')) }}
        as submit_time_local,
    {{ dbt.safe_cast('submit_time', type_double()) }} as submit_offset_s,
    {{ dbt.safe_cast('start_time', type_double()) }} as start_offset_s,
    {{ dbt.safe_cast('end_time', type_double()) }} as end_offset_s,
    duration as reported_duration_s,
    {{ queue }} as reported_queue_s,
    cast(null as {{ type_double() }}) as reported_gpu_time_s,
    {{ lineage_columns() }}
{%- endmacro %}
