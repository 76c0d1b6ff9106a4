-- Grain: one cluster, utilization metric, lake partition and bin of the metric's fixed grid (the seed
-- utilization_grid): the samples in the bin. Histograms of partitions add up, so utilization_cdf merges them
-- and an incremental run recounts only the partitions it rebuilds. Bin -1 holds the samples below the grid,
-- bin `bins` those above it; a linear grid's bins are [lower, upper), its last one [lower, upper]. Edges are
-- rounded to 9 decimals, so engines agree on them to the digit.
{{ config(**partition_replace_config()) }}

with

samples as (
    select * from {{ ref('fct_node_metric') }}
    where {{ partition_window() }}
),

clusters as (
    select * from {{ ref('dim_cluster') }}
),

grid as (
    select * from {{ ref('utilization_grid') }}
),

scaled as (
    select
        clusters.cluster_name,
        samples.metric,
        grid.plotted_unit,
        grid.grid_kind,
        grid.grid_min,
        grid.grid_max,
        grid.bins,
        samples.value * grid.scale as plotted_value,
        samples._data_origin,
        samples._partition
    from samples
    inner join clusters on samples.cluster_key = clusters.cluster_key
    inner join grid on samples.metric = grid.metric
),

-- The bin's position on the grid, 0 at grid_min and `bins` at grid_max: linear, or in doublings on a log2 grid.
positioned as (
    select
        *,
        case
            when grid_kind = 'log2' and plotted_value > 0
                then ln(plotted_value / grid_min) / ln(grid_max / grid_min) * bins
            when grid_kind = 'linear'
                then (plotted_value - grid_min) / (grid_max - grid_min) * bins
        end as position
    from scaled
),

binned as (
    select
        *,
        case
            when position is null or position < 0 then -1
            when plotted_value > grid_max then bins
            else least(cast(floor(position) as {{ dbt.type_int() }}), bins - 1)
        end as bin_index
    from positioned
),

counted as (
    select
        cluster_name,
        metric,
        plotted_unit,
        grid_kind,
        grid_min,
        grid_max,
        bins,
        bin_index,
        count(*) as samples,
        {{ count_where("_data_origin = 'real'") }} as real_samples,
        {{ count_where("_data_origin = 'synthetic'") }} as synthetic_samples,
        _partition
    from binned
    group by
        cluster_name, metric, plotted_unit, grid_kind, grid_min, grid_max, bins, bin_index, _partition
),

-- A bin's edges from its index: grid_min + i * width, or grid_min * (grid_max / grid_min) ** (i / bins).
edged as (
    select
        *,
        case
            when grid_kind = 'log2'
                then grid_min * power(grid_max / grid_min, cast(bin_index as {{ type_double() }}) / bins)
            else grid_min + (grid_max - grid_min) * bin_index / bins
        end as lower_edge,
        case
            when grid_kind = 'log2'
                then grid_min * power(grid_max / grid_min, cast(bin_index + 1 as {{ type_double() }}) / bins)
            else grid_min + (grid_max - grid_min) * (bin_index + 1) / bins
        end as upper_edge
    from counted
),

final as (
    select
        cast(cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(metric as {{ dbt.type_string() }}) as metric,
        cast(plotted_unit as {{ dbt.type_string() }}) as plotted_unit,
        cast(bin_index as {{ dbt.type_int() }}) as bin_index,
        cast(
            case when bin_index = -1 then null when bin_index = bins then grid_max else round(lower_edge, 9) end
            as {{ type_double() }}
        ) as bin_lower,
        cast(
            case when bin_index = -1 then grid_min when bin_index = bins then null else round(upper_edge, 9) end
            as {{ type_double() }}
        ) as bin_upper,
        cast(samples as {{ dbt.type_bigint() }}) as samples,
        cast(real_samples as {{ dbt.type_bigint() }}) as real_samples,
        cast(synthetic_samples as {{ dbt.type_bigint() }}) as synthetic_samples,
        cast(_partition as {{ dbt.type_string() }}) as _partition
    from edged
)

select * from final
