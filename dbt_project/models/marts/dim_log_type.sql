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
    {{ distinct_values('log_type', ['documented', 'requests', 'requests_without_fails']) }}
),

members as (
    {{ documented_members(
        'log_type_key', 'log_type', 'log_types', 'documented',
        {'log_type_group': "case log_types.log_type when 'Conversation log' then 'conversation'"
            ~ " when 'API log' then 'api' else 'other' end"}) }}
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
