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
    select model_name from documented
    union
    select model_name from requests
    union
    select model_name from requests_without_fails
),

members as (
    select
        {{ surrogate_key(['models.model_name']) }} as model_key,
        models.model_name,
        documented.model_name is not null as is_documented
    from models
    left join documented on models.model_name = documented.model_name
    where models.model_name is not null

    union all

    select
        {{ unknown_key() }} as model_key,
        'unknown' as model_name,
        false as is_documented
),

final as (
    select
        cast(model_key as {{ dbt.type_string() }}) as model_key,
        cast(model_name as {{ dbt.type_string() }}) as model_name,
        cast(is_documented as {{ dbt.type_boolean() }}) as is_documented
    from members
)

select * from final
