-- One row per published number (every row of published_numbers, plus cluster_summary.csv's job counts per
-- cluster): the computed value from the analysis marts beside it, the population each one counts, the
-- difference and a verdict with its reason. A number computed from rows that are not all real is never a
-- pass: it is not_comparable, because the rows are synthetic.
{%- set job_measures = ['jobs', 'gpu_jobs', 'cpu_jobs'] %}
{%- set file_measures = {
    'rows': 'requests',
    'failed_requests': 'failed_requests',
    'not_failed_requests': 'not_failed_requests',
    'max_request_tokens': 'max_request_tokens',
    'max_response_tokens': 'max_response_tokens',
    'mean_requests_per_hour': 'mean_not_failed_requests_per_hour',
} %}
{%- set utilization_measures = {'median': 'p50', 'share_at_zero': 'share_at_zero', 'max': 'max_value'} %}
{%- set file_name = dbt.concat(["'BurstGPT_'", 'cast(file_number as ' ~ dbt.type_string() ~ ')', "'.csv'"]) %}
with

published as (
    select * from {{ ref('published_numbers') }}
),

cluster_counts as (
    select * from {{ ref('cluster_job_counts') }}
),

state_counts as (
    select * from {{ ref('job_state_counts') }}
),

type_shares as (
    select * from {{ ref('job_type_shares') }}
),

utilization as (
    select * from {{ ref('utilization_percentiles') }}
),

file_summary as (
    select * from {{ ref('request_file_summary') }}
),

mix as (
    select * from {{ ref('request_mix') }}
),

files as (
    select
        {{ file_name }} as file_name,
        requests,
        failed_requests,
        not_failed_requests,
        max_request_tokens,
        max_response_tokens,
        mean_not_failed_requests_per_hour,
        real_requests,
        synthetic_requests
    from file_summary
),

-- every number the marts compute that something publishes, with the real/synthetic rows behind it (the
-- released file's job counts stand beside cluster_summary.csv's as summary_*)
computed as (
    {%- for prefix in ['', 'summary_'] %}
    {%- for measure in job_measures %}
    select
        '{{ prefix ~ measure }}' as measure,
        cluster_name as scope,
        '' as subject,
        cast({{ measure }} as {{ type_double() }}) as computed_value,
        real_jobs as real_rows,
        synthetic_jobs as synthetic_rows
    from cluster_counts

    union all

    {% endfor -%}
    {%- endfor -%}
    select
        'jobs_by_state' as measure,
        state_counts.cluster_name as scope,
        state_counts.job_state as subject,
        cast(state_counts.jobs as {{ type_double() }}) as computed_value,
        cluster_counts.real_jobs as real_rows,
        cluster_counts.synthetic_jobs as synthetic_rows
    from state_counts
    inner join cluster_counts on state_counts.cluster_name = cluster_counts.cluster_name

    union all

    select
        'gpu_job_share_by_type' as measure,
        type_shares.cluster_name as scope,
        type_shares.job_type as subject,
        type_shares.share_by_count as computed_value,
        cluster_counts.real_jobs as real_rows,
        cluster_counts.synthetic_jobs as synthetic_rows
    from type_shares
    inner join cluster_counts on type_shares.cluster_name = cluster_counts.cluster_name

    union all

    select
        'gpu_time_share_by_type' as measure,
        type_shares.cluster_name as scope,
        type_shares.job_type as subject,
        type_shares.share_by_reported_gpu_time as computed_value,
        cluster_counts.real_jobs as real_rows,
        cluster_counts.synthetic_jobs as synthetic_rows
    from type_shares
    inner join cluster_counts on type_shares.cluster_name = cluster_counts.cluster_name
    {%- for measure, column in utilization_measures.items() %}

    union all

    select
        '{{ measure }}' as measure,
        cluster_name as scope,
        metric as subject,
        cast({{ column }} as {{ type_double() }}) as computed_value,
        real_samples as real_rows,
        synthetic_samples as synthetic_rows
    from utilization
    {%- endfor %}
    {%- for measure, column in file_measures.items() %}

    union all

    select
        '{{ measure }}' as measure,
        file_name as scope,
        '' as subject,
        cast({{ column }} as {{ type_double() }}) as computed_value,
        real_requests as real_rows,
        synthetic_requests as synthetic_rows
    from files
    {%- endfor %}

    union all

    select
        {{ dbt.concat(["'not_failed_requests_by_'", 'mix.attribute']) }} as measure,
        files.file_name as scope,
        mix.attribute_value as subject,
        cast(mix.not_failed_requests as {{ type_double() }}) as computed_value,
        files.real_requests as real_rows,
        files.synthetic_requests as synthetic_rows
    from mix
    inner join files on {{ file_name | replace('file_number', 'mix.file_number') }} = files.file_name
),

-- the rows of each cluster and file: a count or share whose subject (state, type, model, log type) has no
-- row there is 0, not missing
scope_rows as (
    select
        cluster_name as scope,
        real_jobs as real_rows,
        synthetic_jobs as synthetic_rows
    from cluster_counts
    where real_jobs + synthetic_jobs > 0

    union all

    select
        file_name as scope,
        real_requests as real_rows,
        synthetic_requests as synthetic_rows
    from files
),

-- cluster_summary.csv's counts: the same population as the released file only where the counts agree
summary_numbers as (
    {%- for measure in job_measures %}
    select
        'summary_{{ measure }}' as measure,
        cluster_counts.cluster_name as scope,
        cast(cluster_counts.summary_{{ measure }} as {{ type_double() }}) as published_value,
        cluster_counts.summary_jobs,
        released.published_value as released_jobs
    from cluster_counts
    {{ published_join('released', 'jobs', 'cluster_counts.cluster_name') }}
    where cluster_counts.summary_{{ measure }} is not null
    {%- if not loop.last %}

    union all

    {% endif -%}
    {%- endfor %}
),

numbers as (
    select
        'published_numbers' as published_source,
        measure,
        scope,
        coalesce(subject, '') as subject,
        unit,
        tag,
        population,
        published_value,
        tolerance,
        true as is_same_population
    from published

    union all

    select
        'cluster_summary.csv' as published_source,
        measure,
        scope,
        '' as subject,
        'jobs' as unit,
        'V' as tag,
        case
            when released_jobs is null or released_jobs = summary_jobs
                then 'jobs of the cluster in cluster_summary.csv'
            else {{ dbt.concat([
                "'cluster_summary.csv counts '",
                'cast(cast(summary_jobs as ' ~ dbt.type_bigint() ~ ') as ' ~ dbt.type_string() ~ ')',
                "' jobs but the released file has '",
                'cast(cast(released_jobs as ' ~ dbt.type_bigint() ~ ') as ' ~ dbt.type_string() ~ ')',
            ]) }}
        end as population,
        published_value,
        cast(0 as {{ type_double() }}) as tolerance,
        coalesce(released_jobs = summary_jobs, true) as is_same_population
    from summary_numbers
),

matched as (
    select
        numbers.*,
        coalesce(
            computed.computed_value,
            case when scope_rows.scope is not null then cast(0 as {{ type_double() }}) end
        ) as computed_value,
        coalesce(computed.real_rows, scope_rows.real_rows, 0) as real_rows,
        coalesce(computed.synthetic_rows, scope_rows.synthetic_rows, 0) as synthetic_rows
    from numbers
    left join computed
        on
            numbers.measure = computed.measure
            and numbers.scope = computed.scope
            and numbers.subject = computed.subject
    left join scope_rows
        on
            numbers.scope = scope_rows.scope
            and numbers.measure in (
                'jobs_by_state', 'gpu_job_share_by_type', 'gpu_time_share_by_type',
                'not_failed_requests_by_model', 'not_failed_requests_by_log_type'
            )
),

compared as (
    select
        *,
        abs(computed_value - published_value) as abs_difference,
        abs(computed_value - published_value) / nullif(abs(published_value), 0) as rel_difference,
        case
            when real_rows + synthetic_rows = 0 then 'none'
            when synthetic_rows = 0 then 'real'
            when real_rows = 0 then 'synthetic'
            else 'mixed'
        end as data_origin
    from matched
),

final as (
    select
        published_source,
        measure,
        scope,
        subject,
        unit,
        tag,
        population,
        published_value,
        computed_value,
        abs_difference,
        rel_difference,
        tolerance,
        cast(real_rows as {{ dbt.type_bigint() }}) as real_rows,
        cast(synthetic_rows as {{ dbt.type_bigint() }}) as synthetic_rows,
        data_origin,
        case
            when computed_value is null or data_origin != 'real' then 'not_comparable'
            when not is_same_population then 'not_comparable'
            when abs_difference <= tolerance then 'pass'
            else 'mismatch'
        end as verdict,
        case
            when data_origin in ('synthetic', 'mixed')
                then {{ dbt.concat([
                    "'the rows are synthetic ('",
                    'cast(synthetic_rows as ' ~ dbt.type_string() ~ ')',
                    "' of '",
                    'cast(real_rows + synthetic_rows as ' ~ dbt.type_string() ~ ')',
                    "' rows): not a real-data result'",
                ]) }}
            when computed_value is null or data_origin = 'none'
                then 'not computable: no rows of this scope are loaded'
            when not is_same_population
                then {{ dbt.concat(["'different population: '", 'population']) }}
            when abs_difference = 0 then 'equal'
            when abs_difference <= tolerance
                then {{ dbt.concat([
                    "'within the tolerance of '",
                    'cast(tolerance as ' ~ dbt.type_string() ~ ')',
                    "' (rounded or read off a figure)'",
                ]) }}
            else {{ dbt.concat([
                "'differs by '",
                'cast(abs_difference as ' ~ dbt.type_string() ~ ')',
                "', more than the tolerance of '",
                'cast(tolerance as ' ~ dbt.type_string() ~ ')',
            ]) }}
        end as reason
    from compared
)

select * from final
