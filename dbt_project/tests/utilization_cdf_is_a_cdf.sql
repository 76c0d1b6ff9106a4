-- Fails on every row of utilization_cdf that breaks what a CDF is: a share outside (0, 1], a share below the
-- one before it, a last row that does not end at 1, or cumulative samples that do not add up the bins.
{{ config(meta={'dagster': {'ref': {'name': 'utilization_cdf'}}}) }}

with

cdf as (
    select * from {{ ref('utilization_cdf') }}
),

ordered as (
    select
        *,
        lag(cumulative_share) over (partition by cluster_name, metric order by bin_index) as previous_share,
        sum(samples) over (
            partition by cluster_name, metric order by bin_index rows between unbounded preceding and current row
        ) as running_samples,
        row_number() over (partition by cluster_name, metric order by bin_index desc) as from_last
    from cdf
)

select *
from ordered
where
    cumulative_share <= 0
    or cumulative_share > 1 + 1e-12
    or cumulative_share < previous_share
    or (from_last = 1 and abs(cumulative_share - 1) > 1e-12)
    or running_samples != cumulative_samples
