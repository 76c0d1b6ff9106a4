-- Grain: one cluster, utilization metric, UTC hour and bin of the metric's fixed grid (seed utilization_grid;
-- null for a metric without one), in the lake partition of that hour: the samples of fct_node_metric there,
-- their sum and maximum, those at 0, real and synthetic, and the repeated samples the fact dropped. This is
-- the one scan of the samples after the load: every statistic of them (utilization_hourly,
-- utilization_histogram, the CDFs, the percentiles' counts and means, cluster occupancy, the report's origin
-- counts) merges from here. The fact's samples are what int_node_metrics_keyed shows: every staged sample
-- that cannot repeat another (macros/utilization_samples.sql, may_repeat_keys) as it stands, and the few
-- that may as int_node_metric_repeats kept them. The scan groups by integers and the two short strings a
-- file holds one value of; the partition is the hour's (an hour lies inside one UTC date). Bin -1 holds the
-- samples below the grid, bin `bins` those above it; a linear grid's bins are [lower, upper), its last one
-- [lower, upper].
{{ config(**partition_replace_config()) }}

with

samples as (
    {{ utilization_samples() }}
),

lines as (
    select * from {{ ref('int_node_metric_lines') }}
    where {{ partition_window() }}
),

partition_series as (
    select * from {{ ref('int_node_metric_series') }}
    where {{ partition_window() }}
),

series as (
    select * from {{ ref('int_node_series') }}
),

repeats as (
    select * from {{ ref('int_node_metric_repeats') }}
    where {{ partition_window() }}
),

-- A sample's position on its metric's grid is one multiply-add (and a log2 on a log2 grid), its constants
-- computed here once per metric. Every edge a grid puts on a whole or half percent, or on a power of two, then
-- gets the samples at it exactly: a division per sample (29 / 100 * 200 = 57.99...) put some in the bin below.
grid as (
    select
        metric,
        scale,
        grid_max,
        bins,
        grid_kind = 'log2' as is_log2,
        case
            when grid_kind = 'linear' then bins * scale / (grid_max - grid_min)
            when grid_kind = 'log2' then bins / log2(grid_max / grid_min)
        end as slope,
        case
            when grid_kind = 'linear' then -bins * grid_min / (grid_max - grid_min)
            when grid_kind = 'log2' then (log2(scale) - log2(grid_min)) * bins / log2(grid_max / grid_min)
        end as intercept
    from {{ ref('utilization_grid') }}
),

{{ may_repeat_keys() }},

facts as (
    select
        samples.cluster_name,
        samples.metric_level,
        samples.metric,
        samples.sample_time_utc,
        samples.value,
        0 as duplicate_samples,
        samples._data_origin,
        samples._partition
    from samples
    {{ join_may_repeat_keys() }}
    where repeated_lines._row_number is null and shared_series.series is null

    union all

    select
        cluster_name,
        metric_level,
        metric,
        sample_time_utc,
        value,
        duplicate_samples,
        _data_origin,
        _partition
    from repeats
),

-- The bin's position on the grid, 0 at grid_min and `bins` at grid_max: linear, or in doublings on a log2 grid.
positioned as (
    select
        facts.*,
        grid.bins,
        grid.grid_max,
        facts.value * grid.scale as plotted_value,
        case
            when not grid.is_log2 then facts.value * grid.slope + grid.intercept
            when facts.value * grid.scale > 0 then log2(facts.value) * grid.slope + grid.intercept
        end as position
    from facts
    left join grid on facts.metric = grid.metric
),

binned as (
    select
        *,
        {{ epoch_hour('sample_time_utc') }} as hour_index,
        case
            when bins is null then null
            when position is null or position < 0 then -1
            when plotted_value > grid_max then bins
            else least(cast(floor(position) as {{ dbt.type_int() }}), bins - 1)
        end as bin_index
    from positioned
),

final as (
    select
        cast(cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast({{ dbt.any_value('metric_level') }} as {{ dbt.type_string() }}) as metric_level,
        cast(metric as {{ dbt.type_string() }}) as metric,
        cast(hour_index as {{ dbt.type_bigint() }}) as hour_index,
        cast(bin_index as {{ dbt.type_int() }}) as bin_index,
        cast(count(*) as {{ dbt.type_bigint() }}) as samples,
        {{ count_where("_data_origin = 'real'") }} as real_samples,
        {{ count_where("_data_origin = 'synthetic'") }} as synthetic_samples,
        {{ count_where("value = 0") }} as zero_samples,
        cast(sum(duplicate_samples) as {{ dbt.type_bigint() }}) as duplicate_samples,
        cast(sum(value) as {{ type_double() }}) as value_sum,
        cast(max(value) as {{ type_double() }}) as max_value,
        cast({{ dbt.any_value('_partition') }} as {{ dbt.type_string() }}) as _partition
    from binned
    group by cluster_name, metric, hour_index, bin_index
)

select * from final
