-- One row per (cluster, metric, node, GPU index, 15 s sample): the loaded samples of the lines dbt has built
-- (int_node_metric_lines), keyed by their series (int_node_series: node, GPU, surrogate keys, unit). A view:
-- the samples stay in the lake once, and the joins are to two small tables. Repeated samples of one node,
-- GPU and time are dropped keeping the first _row_number; duplicate_samples counts them. A sample can only
-- repeat on a line whose time another line repeats, or in a series that shares its node and GPU with
-- another: only those rows go through the window that ranks them, the rest pass with duplicate_samples 0.
-- The two branches each read their inputs: DuckDB materializes a CTE read twice (every sample copied, and
-- the join order then planned blind).
{{ config(materialized='view') }}

with
{% for branch, repeats in [('single', false), ('repeated', true)] %}
{{ branch }}_lines as (
    select * from {{ ref('int_node_metric_lines') }}
),

{{ branch }}_series as (
    select * from {{ ref('int_node_series') }}
),

{{ branch }}_samples as (
    {{ utilization_samples(windowed=false) }}
),

{{ branch }}_joined as (
    select
        samples.cluster_name,
        samples.metric_level,
        samples.metric,
        samples.series,
        series.series_kind,
        series.node_id,
        series.node_alias,
        series.gpu_index,
        series.cluster_key,
        series.node_key,
        series.gpu_key,
        series.unit,
        samples.sample_time_utc,
        lines.sample_date_key,
        lines.sample_time_of_day_key,
        samples.utc_offset,
        samples.value,
        samples._source_file,
        samples._row_number,
        samples._data_origin,
        samples._partition
    from {{ branch }}_samples as samples
    -- a file is one cluster and metric: joining lines on them too would let the planner join the two small
    -- tables to each other first (a product the size of the samples)
    inner join {{ branch }}_lines as lines
        on
            samples._partition = lines._partition
            and samples._source_file = lines._source_file
            and samples._row_number = lines._row_number
    inner join {{ branch }}_series as series
        on
            samples.cluster_name = series.cluster_name
            and samples.metric = series.metric
            and samples.series = series.series
    where {{ '' if repeats else 'not ' }}(lines.time_repeated or series.node_shared)
),
{% endfor %}
ranked as (
    select
        *,
        row_number() over (
            partition by _partition, cluster_name, metric, node_id, gpu_index, sample_time_utc
            order by _row_number, _source_file, series_kind
        ) as occurrence,
        count(*) over (
            partition by _partition, cluster_name, metric, node_id, gpu_index, sample_time_utc
        ) - 1 as duplicate_samples
    from repeated_joined
),

kept as (
    select
        *,
        1 as occurrence,
        0 as duplicate_samples
    from single_joined
    union all
    select * from ranked
    where occurrence = 1
),

final as (
    select
        cluster_name,
        metric_level,
        metric,
        series,
        series_kind,
        node_id,
        node_alias,
        gpu_index,
        cluster_key,
        node_key,
        gpu_key,
        unit,
        sample_time_utc,
        sample_date_key,
        sample_time_of_day_key,
        utc_offset,
        value,
        cast(duplicate_samples as {{ dbt.type_bigint() }}) as duplicate_samples,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from kept
)

select * from final
