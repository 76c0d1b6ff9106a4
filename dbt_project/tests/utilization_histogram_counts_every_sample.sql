-- Fails on every cluster, metric and partition whose histogram does not count exactly the samples of
-- fct_node_metric (metrics with a grid only): nothing binned twice, nothing lost off the grid's ends. A
-- partition-wise build checks the partitions it rebuilt (var partition_keys), a full build all of them.
{{ config(meta={'dagster': {'ref': {'name': 'utilization_histogram'}}}) }}

with

samples as (
    select * from {{ ref('fct_node_metric') }}
    where {{ named_partitions() }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

grid as (
    select * from {{ ref('utilization_grid') }}
),

histogram as (
    select * from {{ ref('utilization_histogram') }}
    where {{ named_partitions() }}
),

sampled as (
    select
        clusters.cluster_name,
        samples.metric,
        samples._partition,
        count(*) as samples
    from samples
    inner join clusters on samples.cluster_key = clusters.cluster_key
    inner join grid on samples.metric = grid.metric
    group by clusters.cluster_name, samples.metric, samples._partition
),

binned as (
    select
        cluster_name,
        metric,
        _partition,
        sum(samples) as samples
    from histogram
    group by cluster_name, metric, _partition
)

select
    coalesce(sampled.cluster_name, binned.cluster_name) as cluster_name,
    coalesce(sampled.metric, binned.metric) as metric,
    coalesce(sampled._partition, binned._partition) as _partition,
    sampled.samples as fact_samples,
    binned.samples as histogram_samples
from sampled
full outer join binned
    on
        sampled.cluster_name = binned.cluster_name
        and sampled.metric = binned.metric
        and sampled._partition = binned._partition
where sampled.samples is null or binned.samples is null or sampled.samples != binned.samples
