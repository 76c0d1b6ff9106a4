-- Grain: one cluster, utilization metric, UTC hour and bin of the metric's fixed grid (seed utilization_grid;
-- null for a metric without one), in the lake partition of that hour: the samples of fct_node_metric there,
-- their sum and maximum, those at 0, real and synthetic, and the repeated samples the fact dropped. This is
-- the one scan of the samples after the load: every statistic of them (utilization_hourly,
-- utilization_histogram, the CDFs, the percentiles' counts and means, cluster occupancy, the report's origin
-- counts) merges from here.
-- The scan groups by integers and the two small string keys a file holds one value of; the partition is the
-- hour's (an hour lies inside one UTC date). A sample can only repeat another where a line repeats another
-- line's time or a series shares its node and GPU with another: a sample on a line number some repeated line
-- has, or of a shared series, keeps a group of its own, and only those few are de-duplicated as
-- int_node_metrics_keyed does (first _row_number kept). Bin -1 holds the samples below the grid, bin `bins`
-- those above it; a linear grid's bins are [lower, upper), its last one [lower, upper].
{{ config(**partition_replace_config()) }}

with

samples as (
    {{ utilization_samples() }}
),

lines as (
    select * from {{ ref('int_node_metric_lines') }}
    where {{ partition_window() }}
),

series as (
    select * from {{ ref('int_node_series') }}
),

grid as (
    select * from {{ ref('utilization_grid') }}
),

repeated_line_numbers as (
    select distinct _row_number
    from lines
    where time_repeated
),

shared_series as (
    select distinct series
    from series
    where node_shared
),

flagged as (
    select
        samples.*,
        (repeated_line_numbers._row_number is not null or shared_series.series is not null) as may_repeat
    from samples
    left join repeated_line_numbers on samples._row_number = repeated_line_numbers._row_number
    left join shared_series on samples.series = shared_series.series
),

-- The bin's position on the grid, 0 at grid_min and `bins` at grid_max: linear, or in doublings on a log2 grid.
positioned as (
    select
        flagged.*,
        grid.bins,
        grid.grid_max,
        flagged.value * grid.scale as plotted_value,
        case
            when grid.grid_kind = 'log2' and flagged.value * grid.scale > 0
                then ln(flagged.value * grid.scale / grid.grid_min) / ln(grid.grid_max / grid.grid_min) * grid.bins
            when grid.grid_kind = 'linear'
                then (flagged.value * grid.scale - grid.grid_min) / (grid.grid_max - grid.grid_min) * grid.bins
        end as position
    from flagged
    left join grid on flagged.metric = grid.metric
),

binned as (
    select
        *,
        cast(
            floor(
                {{ epoch_seconds('sample_time_utc') }}
                / 3600
            ) as {{ dbt.type_bigint() }}
        ) as hour_index,
        case
            when bins is null then null
            when position is null or position < 0 then -1
            when plotted_value > grid_max then bins
            else least(cast(floor(position) as {{ dbt.type_int() }}), bins - 1)
        end as bin_index
    from positioned
),

grouped as (
    select
        cluster_name,
        metric,
        hour_index,
        bin_index,
        case when may_repeat then series end as repeat_series,
        case when may_repeat then _source_file end as repeat_source_file,
        case when may_repeat then _row_number end as repeat_row_number,
        case when may_repeat then sample_time_utc end as repeat_time_utc,
        {{ dbt.any_value('metric_level') }} as metric_level,
        {{ dbt.any_value('_partition') }} as _partition,
        count(*) as samples,
        {{ count_where("_data_origin = 'real'") }} as real_samples,
        {{ count_where("_data_origin = 'synthetic'") }} as synthetic_samples,
        {{ count_where("value = 0") }} as zero_samples,
        sum(value) as value_sum,
        max(value) as max_value
    from binned
    group by
        cluster_name,
        metric,
        hour_index,
        bin_index,
        case when may_repeat then series end,
        case when may_repeat then _source_file end,
        case when may_repeat then _row_number end,
        case when may_repeat then sample_time_utc end
),

-- each a single sample (a cell is one file, line and series)
may_repeat as (
    select
        grouped.*,
        series.node_id,
        series.gpu_index,
        series.series_kind
    from grouped
    inner join series
        on
            grouped.cluster_name = series.cluster_name
            and grouped.metric = series.metric
            and grouped.repeat_series = series.series
    where grouped.repeat_row_number is not null
),

ranked as (
    select
        *,
        row_number() over (
            partition by _partition, cluster_name, metric, node_id, gpu_index, repeat_time_utc
            order by repeat_row_number, repeat_source_file, series_kind
        ) as occurrence,
        count(*) over (
            partition by _partition, cluster_name, metric, node_id, gpu_index, repeat_time_utc
        ) - 1 as duplicates
    from may_repeat
),

kept as (
    select
        cluster_name,
        metric_level,
        metric,
        hour_index,
        bin_index,
        samples,
        real_samples,
        synthetic_samples,
        zero_samples,
        0 as duplicate_samples,
        value_sum,
        max_value,
        _partition
    from grouped
    where repeat_row_number is null

    union all

    select
        cluster_name,
        metric_level,
        metric,
        hour_index,
        bin_index,
        samples,
        real_samples,
        synthetic_samples,
        zero_samples,
        duplicates as duplicate_samples,
        value_sum,
        max_value,
        _partition
    from ranked
    where occurrence = 1
),

final as (
    select
        cast(cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(metric_level as {{ dbt.type_string() }}) as metric_level,
        cast(metric as {{ dbt.type_string() }}) as metric,
        cast(hour_index as {{ dbt.type_bigint() }}) as hour_index,
        cast(bin_index as {{ dbt.type_int() }}) as bin_index,
        cast(sum(samples) as {{ dbt.type_bigint() }}) as samples,
        cast(sum(real_samples) as {{ dbt.type_bigint() }}) as real_samples,
        cast(sum(synthetic_samples) as {{ dbt.type_bigint() }}) as synthetic_samples,
        cast(sum(zero_samples) as {{ dbt.type_bigint() }}) as zero_samples,
        cast(sum(duplicate_samples) as {{ dbt.type_bigint() }}) as duplicate_samples,
        cast(sum(value_sum) as {{ type_double() }}) as value_sum,
        cast(max(max_value) as {{ type_double() }}) as max_value,
        cast(_partition as {{ dbt.type_string() }}) as _partition
    from kept
    group by cluster_name, metric_level, metric, hour_index, bin_index, _partition
)

select * from final
