-- One row per BurstGPT model name (natural key model_name; documented: ChatGPT, GPT-4; others kept and
-- flagged), plus the unknown member.
with

requests as (
    select * from {{ ref('stg_burstgpt__requests') }}
),

requests_without_fails as (
    select * from {{ ref('stg_burstgpt__requests_without_fails') }}
),

documented as (
    select value as model_name from {{ ref('documented_values') }}
    where domain = 'model'
),

models as (
    {{ distinct_values('model_name', ['documented', 'requests', 'requests_without_fails']) }}
),

members as (
    {{ documented_members('model_key', 'model_name', 'models', 'documented') }}
),

final as (
    select
        cast(model_key as {{ dbt.type_string() }}) as model_key,
        cast(model_name as {{ dbt.type_string() }}) as model_name,
        cast(is_documented as {{ dbt.type_boolean() }}) as is_documented
    from members
)

select * from final
