-- Grain: one cluster, utilization metric, UTC hour and lake partition: the hour's samples (real, synthetic,
-- at zero) and the sum, mean and maximum of their values, merged from int_utilization_hour_bins' bins. An
-- hour lies inside one UTC date, so a partition holds whole hours: an incremental run recounts only the
-- partitions it rebuilds, and the marts that need sums over time (cluster_occupancy_hourly,
-- utilization_percentiles' counts, means and maxima) read these hours.
{{ config(**partition_replace_config()) }}

with

bins as (
    select * from {{ ref('int_utilization_hour_bins') }}
    where {{ partition_window() }}
),

units as (
    select * from {{ ref('metric_units') }}
),

hourly as (
    select
        cluster_name,
        metric,
        metric_level,
        hour_index,
        sum(samples) as samples,
        sum(real_samples) as real_samples,
        sum(synthetic_samples) as synthetic_samples,
        sum(zero_samples) as zero_samples,
        sum(value_sum) as value_sum,
        max(max_value) as max_value,
        _partition
    from bins
    group by cluster_name, metric, metric_level, hour_index, _partition
),

final as (
    select
        cast(hourly.cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(hourly.metric as {{ dbt.type_string() }}) as metric,
        cast(hourly.metric_level as {{ dbt.type_string() }}) as metric_level,
        cast(coalesce(units.unit, 'unknown') as {{ dbt.type_string() }}) as unit,
        cast(hourly.hour_index as {{ dbt.type_bigint() }}) as hour_index,
        cast(hourly.samples as {{ dbt.type_bigint() }}) as samples,
        cast(hourly.real_samples as {{ dbt.type_bigint() }}) as real_samples,
        cast(hourly.synthetic_samples as {{ dbt.type_bigint() }}) as synthetic_samples,
        cast(hourly.zero_samples as {{ dbt.type_bigint() }}) as zero_samples,
        cast(hourly.value_sum as {{ type_double() }}) as value_sum,
        cast(hourly.value_sum / hourly.samples as {{ type_double() }}) as mean_value,
        cast(hourly.max_value as {{ type_double() }}) as max_value,
        cast(hourly._partition as {{ dbt.type_string() }}) as _partition
    from hourly
    left join units on hourly.metric = units.metric
)

select * from final
