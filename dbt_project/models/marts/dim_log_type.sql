-- One row per BurstGPT log type (natural key log_type; documented: Conversation log, API log; others
-- kept and flagged), plus the unknown member.
with

requests as (
    select * from {{ ref('stg_burstgpt__requests') }}
),

requests_without_fails as (
    select * from {{ ref('stg_burstgpt__requests_without_fails') }}
),

documented as (
    select value as log_type from {{ ref('documented_values') }}
    where domain = 'log_type'
),

log_types as (
    select log_type from documented
    union
    select log_type from requests
    union
    select log_type from requests_without_fails
),

members as (
    select
        {{ surrogate_key(['log_types.log_type']) }} as log_type_key,
        log_types.log_type,
        case
            when log_types.log_type = 'Conversation log' then 'conversation'
            when log_types.log_type = 'API log' then 'api'
            else 'other'
        end as log_type_group,
        documented.log_type is not null as is_documented
    from log_types
    left join documented on log_types.log_type = documented.log_type
    where log_types.log_type is not null

    union all

    select
        {{ unknown_key() }} as log_type_key,
        'unknown' as log_type,
        'unknown' as log_type_group,
        false as is_documented
),

final as (
    select
        cast(log_type_key as {{ dbt.type_string() }}) as log_type_key,
        cast(log_type as {{ dbt.type_string() }}) as log_type,
        cast(log_type_group as {{ dbt.type_string() }}) as log_type_group,
        cast(is_documented as {{ dbt.type_boolean() }}) as is_documented
    from members
)

select * from final
