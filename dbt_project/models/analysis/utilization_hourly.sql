-- Grain: one cluster, utilization metric, UTC hour and lake partition: the hour's samples (real, synthetic,
-- at zero) and the sum, mean and maximum of their values. An hour lies inside one UTC date, so a partition
-- holds whole hours: an incremental run recounts only the partitions it rebuilds, and the marts that need
-- sums over time (cluster_occupancy_hourly, utilization_percentiles' counts, means and maxima) read these
-- hours instead of every sample.
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
        samples.metric_level,
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
        cast(metric_level as {{ dbt.type_string() }}) as metric_level,
        cast(unit as {{ dbt.type_string() }}) as unit,
        cast(hour_index as {{ dbt.type_bigint() }}) as hour_index,
        cast(count(*) as {{ dbt.type_bigint() }}) as samples,
        cast({{ count_where("_data_origin = 'real'") }} as {{ dbt.type_bigint() }}) as real_samples,
        cast({{ count_where("_data_origin = 'synthetic'") }} as {{ dbt.type_bigint() }}) as synthetic_samples,
        cast({{ count_where("value = 0") }} as {{ dbt.type_bigint() }}) as zero_samples,
        cast(sum(value) as {{ type_double() }}) as value_sum,
        cast(avg(value) as {{ type_double() }}) as mean_value,
        cast(max(value) as {{ type_double() }}) as max_value,
        cast(_partition as {{ dbt.type_string() }}) as _partition
    from hourly
    group by cluster_name, metric, metric_level, unit, hour_index, _partition
)

select * from final
