-- Grain: one cluster, utilization metric, UTC hour and lake partition: the hour's samples and the sum and
-- mean of their values. An hour lies inside one UTC date, so a partition holds whole hours: an incremental
-- run recounts only the partitions it rebuilds, and cluster_occupancy_hourly reads GPU_UTIL here instead of
-- every sample.
{{ config(**partition_replace_config()) }}

with

samples as (
    select * from {{ ref('fct_node_metric') }}
    where {{ partition_window() }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

hourly as (
    select
        clusters.cluster_name,
        samples.metric,
        samples.unit,
        cast(
            floor(
                {{ epoch_seconds('samples.sample_time_utc') }}
                / 3600
            ) as {{ dbt.type_bigint() }}
        ) as hour_index,
        samples.value,
        samples._data_origin,
        samples._partition
    from samples
    inner join clusters on samples.cluster_key = clusters.cluster_key
),

final as (
    select
        cast(cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(metric as {{ dbt.type_string() }}) as metric,
        cast(unit as {{ dbt.type_string() }}) as unit,
        cast(hour_index as {{ dbt.type_bigint() }}) as hour_index,
        cast(count(*) as {{ dbt.type_bigint() }}) as samples,
        cast({{ count_where("_data_origin = 'real'") }} as {{ dbt.type_bigint() }}) as real_samples,
        cast(sum(value) as {{ type_double() }}) as value_sum,
        cast(avg(value) as {{ type_double() }}) as mean_value,
        cast(_partition as {{ dbt.type_string() }}) as _partition
    from hourly
    group by cluster_name, metric, unit, hour_index, _partition
)

select * from final
