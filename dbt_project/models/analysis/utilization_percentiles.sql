-- One row per cluster and utilization metric: samples, GPUs/nodes, percentiles, mean, max, the share of
-- samples at 0 and real/synthetic samples, with the published median / share at 0 / max beside them. Empty
-- cells (idle GPUs) were never loaded, so shares are of recorded samples.
{%- set fractions = [0.25, 0.5, 0.75, 0.9, 0.99] %}
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
        {{ percentiles_cont('samples.value', fractions) }} as percentiles,
        avg(samples.value) as mean_value,
        max(samples.value) as max_value,
        cast({{ count_where("samples.value = 0") }} as {{ type_double() }}) / count(*) as share_at_zero,
        {{ count_where("samples._data_origin = 'real'") }} as real_samples,
        {{ count_where("samples._data_origin = 'synthetic'") }} as synthetic_samples
    from samples
    inner join clusters on samples.cluster_key = clusters.cluster_key
    group by clusters.cluster_name, samples.metric, samples.metric_level, samples.unit
),

unpacked as (
    select
        cluster_name,
        metric,
        metric_level,
        unit,
        samples,
        nodes,
        gpus,
        {%- for fraction in fractions %}
        {{ array_at('percentiles', loop.index) }} as p{{ (fraction * 100) | int }},
        {%- endfor %}
        mean_value,
        max_value,
        share_at_zero,
        real_samples,
        synthetic_samples
    from stats
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
