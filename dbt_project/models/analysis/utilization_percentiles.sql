-- One row per cluster and utilization metric: samples, GPUs/nodes, percentiles, mean, max, the share of
-- samples at 0 and real/synthetic samples, with the published median / share at 0 / max beside them. Empty
-- cells (idle GPUs) were never loaded, so shares are of recorded samples. Percentiles are exact (interpolated,
-- every value held in memory) or binned, read off utilization_cdf: the upper edge of the bin holding the exact
-- (discrete) percentile, in bounded memory at any scale; the percentile_error column states the most they
-- can be off (0 when exact). TRACE_UTILIZATION_PERCENTILES picks: exact, binned, or auto (the default: exact
-- while the warehouse holds at most 20 M utilization samples, which fit under DuckDB's default memory cap,
-- binned beyond). Everything else is exact either way.
-- depends_on: {{ ref('utilization_cdf') }}
-- depends_on: {{ ref('int_node_metric_series') }}
-- depends_on: {{ ref('utilization_grid') }}
{%- set fractions = [0.25, 0.5, 0.75, 0.9, 0.99] %}
{%- set binned = percentiles_binned(env_var('TRACE_UTILIZATION_PERCENTILES', 'auto'), var('exact_percentiles_up_to')) %}
with

samples as (
    select * from {{ ref('fct_node_metric') }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

published as (
    select * from {{ ref('published_numbers') }}
),

stats as (
    select
        clusters.cluster_name,
        samples.metric,
        samples.metric_level,
        samples.unit,
        count(*) as samples,
        count(distinct samples.node_key) as nodes,
        count(distinct case when samples.metric_level = 'gpu' then samples.gpu_key end) as gpus,
        {%- if not binned %}
        {{ percentiles_cont('samples.value', fractions) }} as percentiles,
        {%- endif %}
        avg(samples.value) as mean_value,
        max(samples.value) as max_value,
        cast({{ count_where("samples.value = 0") }} as {{ type_double() }}) / count(*) as share_at_zero,
        {{ count_where("samples._data_origin = 'real'") }} as real_samples,
        {{ count_where("samples._data_origin = 'synthetic'") }} as synthetic_samples
    from samples
    inner join clusters on samples.cluster_key = clusters.cluster_key
    group by clusters.cluster_name, samples.metric, samples.metric_level, samples.unit
),

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
        stats.nodes,
        stats.gpus,
        {%- for fraction in fractions %}
        {%- if binned %}
        binned.p{{ (fraction * 100) | int }},
        {%- else %}
        {{ array_at('stats.percentiles', loop.index) }} as p{{ (fraction * 100) | int }},
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
    {%- if binned %}
    left join binned on stats.cluster_name = binned.cluster_name and stats.metric = binned.metric
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
