-- Fails on every cluster, metric and partition whose per-hour bins do not count exactly the staged samples
-- int_node_metric_series counted there (the fact's samples plus the repeated ones it dropped), or whose
-- histogram (metrics with a grid) does not: nothing binned twice, nothing lost off the grid's ends. Reads the
-- small per-partition tables only, never the samples. A partition-wise build checks the partitions it
-- rebuilt (var partition_keys), a full build all of them.
{{ config(meta={'dagster': {'ref': {'name': 'int_utilization_hour_bins'}}}) }}

with

partition_series as (
    select * from {{ ref('int_node_metric_series') }}
    where {{ named_partitions() }}
),

bins as (
    select * from {{ ref('int_utilization_hour_bins') }}
    where {{ named_partitions() }}
),

histogram as (
    select * from {{ ref('utilization_histogram') }}
    where {{ named_partitions() }}
),

grid as (
    select * from {{ ref('utilization_grid') }}
),

staged as (
    select
        cluster_name,
        metric,
        _partition,
        sum(cells) as samples
    from partition_series
    group by cluster_name, metric, _partition
),

binned as (
    select
        cluster_name,
        metric,
        _partition,
        sum(samples) as samples,
        sum(duplicate_samples) as duplicate_samples
    from bins
    group by cluster_name, metric, _partition
),

histogrammed as (
    select
        cluster_name,
        metric,
        _partition,
        sum(samples) as samples
    from histogram
    group by cluster_name, metric, _partition
)

select
    coalesce(staged.cluster_name, binned.cluster_name) as cluster_name,
    coalesce(staged.metric, binned.metric) as metric,
    coalesce(staged._partition, binned._partition) as _partition,
    staged.samples as staged_samples,
    binned.samples as fact_samples,
    binned.duplicate_samples,
    histogrammed.samples as histogram_samples
from staged
full outer join binned
    on
        staged.cluster_name = binned.cluster_name
        and staged.metric = binned.metric
        and staged._partition = binned._partition
left join grid on binned.metric = grid.metric
left join histogrammed
    on
        binned.cluster_name = histogrammed.cluster_name
        and binned.metric = histogrammed.metric
        and binned._partition = histogrammed._partition
where
    staged.samples is null
    or binned.samples is null
    or staged.samples != binned.samples + binned.duplicate_samples
    or (grid.metric is not null and coalesce(histogrammed.samples, 0) != binned.samples)
