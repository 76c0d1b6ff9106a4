-- One row per job type (natural key job_type; documented: Eval, Pretrain, SFT, MLLM, Debug, Other; others
-- kept and flagged), plus the unknown member (jobs without a type, e.g. previous-work traces).
with

jobs as (
    select * from {{ ref('int_jobs_deduplicated') }}
),

documented as (
    select value as job_type from {{ ref('documented_values') }}
    where domain = 'job_type'
),

job_types as (
    {{ distinct_values('job_type', ['documented', 'jobs']) }}
),

members as (
    {{ documented_members('job_type_key', 'job_type', 'job_types', 'documented') }}
),

final as (
    select
        cast(job_type_key as {{ dbt.type_string() }}) as job_type_key,
        cast(job_type as {{ dbt.type_string() }}) as job_type,
        cast(is_documented as {{ dbt.type_boolean() }}) as is_documented
    from members
)

select * from final
