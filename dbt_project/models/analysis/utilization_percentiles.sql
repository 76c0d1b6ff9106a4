-- One row per cluster and utilization metric: samples, GPUs/nodes, percentiles, mean, max, the share of
-- samples at 0 and real/synthetic samples, with the published median / share at 0 / max beside them. Empty
-- cells (idle GPUs) were never loaded, so shares are of recorded samples. Percentiles are exact (interpolated,
-- every value held in memory) or binned, read off utilization_cdf: the upper edge of the bin holding the exact
-- (discrete) percentile, in bounded memory at any scale; the percentile_error column states the most they
-- can be off (0 when exact). TRACE_UTILIZATION_PERCENTILES picks: exact, binned, or auto (the default: exact
-- while the warehouse holds at most var exact_percentiles_up_to utilization samples, binned beyond).
-- Everything else is exact either way: counts, means, maxima and shares at 0 merge from utilization_hourly,
-- the node and GPU counts come from int_node_series, so only exact percentiles read the samples.
-- depends_on: {{ ref('utilization_cdf') }}
-- depends_on: {{ ref('utilization_grid') }}
-- depends_on: {{ ref('int_node_metric_series') }}
-- depends_on: {{ ref('fct_node_metric') }}
-- depends_on: {{ ref('dim_cluster') }}
{%- set fractions = [0.25, 0.5, 0.75, 0.9, 0.99] %}
{%- set binned = percentiles_binned(env_var('TRACE_UTILIZATION_PERCENTILES', 'auto'), var('exact_percentiles_up_to')) %}
with

hours as (
    select * from {{ ref('utilization_hourly') }}
),

series as (
    select * from {{ ref('int_node_series') }}
),

published as (
    select * from {{ ref('published_numbers') }}
),

-- counts, means and maxima merge hour by hour: no sample is read for them
stats as (
    select
        cluster_name,
        metric,
        metric_level,
        unit,
        sum(samples) as samples,
        sum(value_sum) / sum(samples) as mean_value,
        max(max_value) as max_value,
        cast(sum(zero_samples) as {{ type_double() }}) / sum(samples) as share_at_zero,
        sum(real_samples) as real_samples,
        sum(synthetic_samples) as synthetic_samples
    from hours
    group by cluster_name, metric, metric_level, unit
),

-- every series of a node or GPU has samples, so the series count them
members as (
    select
        cluster_name,
        metric,
        count(distinct node_key) as nodes,
        count(distinct case when metric_level = 'gpu' then gpu_key end) as gpus
    from series
    group by cluster_name, metric
),

{%- if not binned %}

samples as (
    select * from {{ ref('fct_node_metric') }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

exact as (
    select
        clusters.cluster_name,
        samples.metric,
        {{ percentiles_cont('samples.value', fractions) }} as percentiles
    from samples
    inner join clusters on samples.cluster_key = clusters.cluster_key
    group by clusters.cluster_name, samples.metric
),
{%- endif %}

{%- if binned %}

-- The first bin whose cumulative share reaches the fraction holds the discrete percentile (in the grid's
-- plotted unit: only metrics whose scale is 1 are comparable to the samples' unit).
binned as (
    select
        cdf.cluster_name,
        cdf.metric,
        {%- for fraction in fractions %}
        min(case when cdf.cumulative_share >= {{ fraction }} then coalesce(cdf.bin_upper, cdf.bin_lower) end)
            as p{{ (fraction * 100) | int }},
        {%- endfor %}
        max(cdf.grid_error) as percentile_error
    from {{ ref('utilization_cdf') }} as cdf
    inner join {{ ref('utilization_grid') }} as grid on cdf.metric = grid.metric
    where grid.scale = 1
    group by cdf.cluster_name, cdf.metric
),
{%- endif %}

unpacked as (
    select
        stats.cluster_name,
        stats.metric,
        stats.metric_level,
        stats.unit,
        stats.samples,
        members.nodes,
        members.gpus,
        {%- for fraction in fractions %}
        {%- if binned %}
        binned.p{{ (fraction * 100) | int }},
        {%- else %}
        {{ array_at('exact.percentiles', loop.index) }} as p{{ (fraction * 100) | int }},
        {%- endif %}
        {%- endfor %}
        cast({{ "binned.percentile_error" if binned else "0" }} as {{ type_double() }}) as percentile_error,
        cast('{{ "binned" if binned else "exact" }}' as {{ dbt.type_string() }}) as percentile_method,
        stats.mean_value,
        stats.max_value,
        stats.share_at_zero,
        stats.real_samples,
        stats.synthetic_samples
    from stats
    inner join members on stats.cluster_name = members.cluster_name and stats.metric = members.metric
    {%- if binned %}
    left join binned on stats.cluster_name = binned.cluster_name and stats.metric = binned.metric
    {%- else %}
    left join exact on stats.cluster_name = exact.cluster_name and stats.metric = exact.metric
    {%- endif %}
),

final as (
    select
        unpacked.*,
        published_median.published_value as published_median,
        published_zero.published_value as published_share_at_zero,
        published_max.published_value as published_max
    from unpacked
    {{ published_join('published_median', 'median', 'unpacked.cluster_name', 'unpacked.metric') }}
    {{ published_join('published_zero', 'share_at_zero', 'unpacked.cluster_name', 'unpacked.metric') }}
    {{ published_join('published_max', 'max', 'unpacked.cluster_name', 'unpacked.metric') }}
)

select * from final
