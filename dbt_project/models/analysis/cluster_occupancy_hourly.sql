-- One row per cluster and UTC hour, from the cluster's first job event or GPU_UTIL sample to its last
-- (hours without one included), built from the GPU jobs alone (jobs carry no node list): jobs and GPUs
-- submitted in the hour; queued (submitted, not started) and running jobs and GPUs at the hour's start,
-- and their means over the hour (time-weighted, so running_gpu_hours = GPU-hours run in the hour); GPUs
-- requested = queued + running. A job never started is queued from submit to end; a job without an end
-- stays queued / running to the last hour. Jobs without a submit time (PAI: offsets only) are left out.
-- Beside it, on the same time axis, GPU_UTIL samples of fct_node_metric in the hour, as utilization_hourly
-- counts them partition by partition: the only join jobs and utilization have. Local time (Asia/Shanghai)
-- beside UTC where the cluster's zone is known.
{%- set quantities = ['queued_jobs', 'queued_gpus', 'running_jobs', 'running_gpus'] %}
with

jobs as (
    select * from {{ ref('fct_job') }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

hourly_utilization as (
    select * from {{ ref('utilization_hourly') }}
),

time_zones as (
    {{ cluster_time_zones() }}
),

numbers as (
    {{ dbt.generate_series(65536) }}
),

gpu_jobs as (
    select
        clusters.cluster_name,
        jobs.gpu_num,
        {{ epoch_seconds('jobs.submit_time_utc') }} as submit_s,
        {{ epoch_seconds('jobs.start_time_utc') }} as start_s,
        {{ epoch_seconds('jobs.end_time_utc') }} as end_s,
        case when jobs._data_origin = 'real' then 1 else 0 end as is_real,
        case when jobs._data_origin = 'synthetic' then 1 else 0 end as is_synthetic
    from jobs
    inner join clusters on jobs.cluster_key = clusters.cluster_key
    where jobs.is_gpu_job and jobs.submit_time_utc is not null
),

-- Each change of the four step functions: + at submit (queued), -/+ at start (queued -> running), - at end.
events as (
    select
        cluster_name,
        submit_s as event_s,
        1 as queued_jobs,
        gpu_num as queued_gpus,
        0 as running_jobs,
        cast(0 as {{ type_double() }}) as running_gpus,
        1 as is_submit
    from gpu_jobs

    union all

    select
        cluster_name,
        start_s as event_s,
        -1 as queued_jobs,
        -gpu_num as queued_gpus,
        1 as running_jobs,
        gpu_num as running_gpus,
        0 as is_submit
    from gpu_jobs
    where start_s is not null

    union all

    select
        cluster_name,
        end_s as event_s,
        case when start_s is null then -1 else 0 end as queued_jobs,
        case when start_s is null then -gpu_num else 0 end as queued_gpus,
        case when start_s is null then 0 else -1 end as running_jobs,
        case when start_s is null then 0 else -gpu_num end as running_gpus,
        0 as is_submit
    from gpu_jobs
    where end_s is not null
),

bucketed as (
    select
        *,
        cast(floor(event_s / 3600) as {{ dbt.type_bigint() }}) as hour_index
    from events
),

-- Per hour: the net change, the change at the hour's first second, and the change weighted by the seconds
-- left in the hour (so the hour's integral is 3600 x the value before the hour + that weighted sum).
hourly_events as (
    select
        cluster_name,
        hour_index,
        {%- for quantity in quantities %}
        sum({{ quantity }}) as {{ quantity }}_change,
        sum(case when event_s = hour_index * 3600 then {{ quantity }} else 0 end) as {{ quantity }}_change_at_start,
        sum({{ quantity }} * ((hour_index + 1) * 3600 - event_s)) as {{ quantity }}_change_s,
        {%- endfor %}
        sum(is_submit) as submitted_jobs,
        sum(case when is_submit = 1 then queued_gpus else 0 end) as submitted_gpus
    from bucketed
    group by cluster_name, hour_index
),

-- Jobs in the system at some time of the hour (submitted before its end, not ended before its start),
-- by origin: + in the hour of the submit, - in the first hour starting at or after the end.
origin_events as (
    select
        cluster_name,
        cast(floor(submit_s / 3600) as {{ dbt.type_bigint() }}) as hour_index,
        is_real as real_jobs,
        is_synthetic as synthetic_jobs
    from gpu_jobs

    union all

    select
        cluster_name,
        cast(ceil(end_s / 3600) as {{ dbt.type_bigint() }}) as hour_index,
        -is_real as real_jobs,
        -is_synthetic as synthetic_jobs
    from gpu_jobs
    where end_s is not null
),

hourly_origin as (
    select
        cluster_name,
        hour_index,
        sum(real_jobs) as real_jobs_change,
        sum(synthetic_jobs) as synthetic_jobs_change
    from origin_events
    group by cluster_name, hour_index
),

-- one row per cluster and hour: an hour lies inside one lake partition (a UTC date)
gpu_utilization as (
    select
        cluster_name,
        hour_index,
        samples as gpu_util_samples,
        mean_value as mean_gpu_util_pct,
        real_samples as real_gpu_util_samples
    from hourly_utilization
    where metric = 'GPU_UTIL'
),

observed_hours as (
    select
        cluster_name,
        hour_index
    from hourly_events

    union all

    select
        cluster_name,
        hour_index
    from gpu_utilization
),

bounds as (
    select
        cluster_name,
        min(hour_index) as first_hour_index,
        max(hour_index) as last_hour_index
    from observed_hours
    group by cluster_name
),

spine as (
    select
        bounds.cluster_name,
        bounds.first_hour_index + numbers.generated_number - 1 as hour_index
    from bounds
    cross join numbers
    where bounds.first_hour_index + numbers.generated_number - 1 <= bounds.last_hour_index
),

cumulated as (
    select
        spine.cluster_name,
        spine.hour_index,
        coalesce(hourly_events.submitted_jobs, 0) as submitted_jobs,
        coalesce(hourly_events.submitted_gpus, 0) as submitted_gpus,
        {%- for quantity in quantities %}
        coalesce(hourly_events.{{ quantity }}_change_at_start, 0) as {{ quantity }}_change_at_start,
        coalesce(hourly_events.{{ quantity }}_change_s, 0) as {{ quantity }}_change_s,
        coalesce(sum(hourly_events.{{ quantity }}_change) over (
            partition by spine.cluster_name order by spine.hour_index
            rows between unbounded preceding and 1 preceding
        ), 0) as {{ quantity }}_before,
        {%- endfor %}
        sum(coalesce(hourly_origin.real_jobs_change, 0)) over (
            partition by spine.cluster_name order by spine.hour_index rows between unbounded preceding and current row
        ) as real_jobs,
        sum(coalesce(hourly_origin.synthetic_jobs_change, 0)) over (
            partition by spine.cluster_name order by spine.hour_index rows between unbounded preceding and current row
        ) as synthetic_jobs
    from spine
    left join hourly_events
        on spine.cluster_name = hourly_events.cluster_name and spine.hour_index = hourly_events.hour_index
    left join hourly_origin
        on spine.cluster_name = hourly_origin.cluster_name and spine.hour_index = hourly_origin.hour_index
),

timed as (
    select
        cumulated.*,
        {{ dbt.dateadd('hour', 'cumulated.hour_index', epoch_timestamp()) }} as hour_start_utc,
        time_zones.time_zone,
        time_zones.utc_offset_minutes
    from cumulated
    left join time_zones on cumulated.cluster_name = time_zones.cluster_name
),

final as (
    select
        timed.cluster_name,
        cast(timed.hour_index as {{ dbt.type_bigint() }}) as hour_index,
        cast(timed.hour_start_utc as {{ dbt.type_timestamp() }}) as hour_start_utc,
        cast(extract(hour from timed.hour_start_utc) as {{ dbt.type_int() }}) as utc_hour_of_day,
        cast(timed.time_zone as {{ dbt.type_string() }}) as time_zone,
        cast(
            {{ dbt.dateadd('minute', 'timed.utc_offset_minutes', 'timed.hour_start_utc') }}
            as {{ dbt.type_timestamp() }}
        ) as hour_start_local,
        cast(
            extract(hour from {{ dbt.dateadd('minute', 'timed.utc_offset_minutes', 'timed.hour_start_utc') }})
            as {{ dbt.type_int() }}
        ) as local_hour_of_day,
        cast(timed.submitted_jobs as {{ dbt.type_bigint() }}) as submitted_jobs,
        cast(timed.submitted_gpus as {{ type_double() }}) as submitted_gpus,
        cast(timed.queued_jobs_before + timed.queued_jobs_change_at_start as {{ dbt.type_bigint() }})
            as queued_jobs_at_hour_start,
        cast(timed.queued_gpus_before + timed.queued_gpus_change_at_start as {{ type_double() }})
            as queued_gpus_at_hour_start,
        cast(timed.running_jobs_before + timed.running_jobs_change_at_start as {{ dbt.type_bigint() }})
            as running_jobs_at_hour_start,
        cast(timed.running_gpus_before + timed.running_gpus_change_at_start as {{ type_double() }})
            as running_gpus_at_hour_start,
        cast(
            timed.queued_gpus_before + timed.queued_gpus_change_at_start
            + timed.running_gpus_before + timed.running_gpus_change_at_start
            as {{ type_double() }}
        ) as requested_gpus_at_hour_start,
        cast(
            timed.queued_jobs_before + timed.queued_jobs_change_s / cast(3600 as {{ type_double() }})
            as {{ type_double() }}
        ) as mean_queued_jobs,
        cast(
            timed.queued_gpus_before + timed.queued_gpus_change_s / cast(3600 as {{ type_double() }})
            as {{ type_double() }}
        ) as mean_queued_gpus,
        cast(
            timed.running_jobs_before + timed.running_jobs_change_s / cast(3600 as {{ type_double() }})
            as {{ type_double() }}
        ) as mean_running_jobs,
        cast(
            timed.running_gpus_before + timed.running_gpus_change_s / cast(3600 as {{ type_double() }})
            as {{ type_double() }}
        ) as running_gpu_hours,
        cast(coalesce(gpu_utilization.gpu_util_samples, 0) as {{ dbt.type_bigint() }}) as gpu_util_samples,
        cast(gpu_utilization.mean_gpu_util_pct as {{ type_double() }}) as mean_gpu_util_pct,
        cast(timed.real_jobs as {{ dbt.type_bigint() }}) as real_jobs,
        cast(timed.synthetic_jobs as {{ dbt.type_bigint() }}) as synthetic_jobs,
        {{ data_origin_label(
            'timed.real_jobs + coalesce(gpu_utilization.real_gpu_util_samples, 0)',
            'timed.synthetic_jobs + coalesce(gpu_utilization.gpu_util_samples, 0)'
            ~ ' - coalesce(gpu_utilization.real_gpu_util_samples, 0)') }} as data_origin
    from timed
    left join gpu_utilization
        on timed.cluster_name = gpu_utilization.cluster_name and timed.hour_index = gpu_utilization.hour_index
)

select * from final
