-- One row per final job state (natural key job_state, after the Philly/PAI mapping) with the paper's
-- grouping: COMPLETED -> completed, CANCELLED -> cancelled, FAILED/TIMEOUT/NODE_FAIL -> failed. A state the
-- datasets do not document (RUNNING, PAI statuses) is its own member in group 'other'. Plus unknown.
with

jobs as (
    select * from {{ ref('int_jobs_deduplicated') }}
),

groups as (
    select * from {{ ref('job_state_groups') }}
),

job_states as (
    {{ distinct_values('job_state', ['groups', 'jobs']) }}
),

members as (
    {{ documented_members(
        'job_state_key', 'job_state', 'job_states', 'groups',
        {'state_group': "coalesce(groups.state_group, 'other')"}) }}
),

final as (
    select
        cast(job_state_key as {{ dbt.type_string() }}) as job_state_key,
        cast(job_state as {{ dbt.type_string() }}) as job_state,
        cast(state_group as {{ dbt.type_string() }}) as state_group,
        cast(state_group = 'failed' as {{ dbt.type_boolean() }}) as is_failed,
        cast(is_documented as {{ dbt.type_boolean() }}) as is_documented
    from members
)

select * from final
