-- One row per (cluster, metric, node, GPU index, 15 s sample): the loaded samples of the partitions dbt has built
-- (int_node_metric_lines), keyed by their series (int_node_series: node, GPU, surrogate keys, unit). A view:
-- the samples stay in the lake once, and each is joined to one small table, its series. A sample that may
-- repeat another (macros/utilization_samples.sql, may_repeat_keys: on a line whose time another line
-- repeats, or of a series sharing its node and GPU with another) is shown as int_node_metric_repeats kept
-- it, the first _row_number of its node, GPU and time, with duplicate_samples counting the repeats dropped;
-- every other sample is shown as it stands, with duplicate_samples 0. The keys of the samples that may
-- repeat are a line number or a series per partition, so telling them apart costs a probe of two tiny tables.
{{ config(materialized='view') }}

with

samples as (
    {{ utilization_samples(windowed=false) }}
),

lines as (
    select * from {{ ref('int_node_metric_lines') }}
),

partition_series as (
    select * from {{ ref('int_node_metric_series') }}
),

series as (
    select * from {{ ref('int_node_series') }}
),

repeats as (
    select * from {{ ref('int_node_metric_repeats') }}
),

built_partitions as (
    select distinct _partition
    from lines
),

{{ may_repeat_keys() }},

single as (
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
        {{ date_key('samples.sample_time_utc') }} as sample_date_key,
        {{ time_of_day_key('samples.sample_time_utc') }} as sample_time_of_day_key,
        samples.utc_offset,
        samples.value,
        cast(0 as {{ dbt.type_bigint() }}) as duplicate_samples,
        samples._source_file,
        samples._row_number,
        samples._data_origin,
        samples._partition
    from samples
    inner join built_partitions on samples._partition = built_partitions._partition
    {{ join_may_repeat_keys() }}
    inner join series
        on
            samples.cluster_name = series.cluster_name
            and samples.metric = series.metric
            and samples.series = series.series
    where repeated_lines._row_number is null and shared_series.series is null
),

final as (
    select * from single
    union all
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
        duplicate_samples,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from repeats
)

select * from final
