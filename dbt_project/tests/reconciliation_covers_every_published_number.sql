-- Fails on every row of published_numbers that reconciliation does not list exactly once, and on every
-- verdict its own columns contradict: a pass on rows that are not all real or outside the tolerance, a
-- mismatch within it. It reads two nodes; the meta names the one Dagster shows it as a check of.
{{ config(meta={'dagster': {'ref': {'name': 'reconciliation'}}}) }}

with

published as (
    select * from {{ ref('published_numbers') }}
),

reconciliation as (
    select * from {{ ref('reconciliation') }}
),

coverage as (
    select
        published.measure,
        published.scope,
        coalesce(published.subject, '') as subject,
        count(reconciliation.measure) as listed
    from published
    left join reconciliation
        on
            reconciliation.published_source = 'published_numbers'
            and published.measure = reconciliation.measure
            and published.scope = reconciliation.scope
            and coalesce(published.subject, '') = reconciliation.subject
    group by published.measure, published.scope, coalesce(published.subject, '')
),

final as (
    select
        measure,
        scope,
        subject,
        'listed ' || cast(listed as {{ dbt.type_string() }}) || ' times' as problem
    from coverage
    where listed != 1

    union all

    select
        measure,
        scope,
        subject,
        'contradicted verdict ' || verdict as problem
    from reconciliation
    where
        (verdict = 'pass' and (data_origin != 'real' or abs_difference > tolerance))
        or (verdict = 'mismatch' and (data_origin != 'real' or abs_difference <= tolerance))
)

select * from final
