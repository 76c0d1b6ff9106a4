-- Grain: one cluster, utilization metric, lake partition and bin of the metric's fixed grid (the seed
-- utilization_grid): the samples in the bin, merged from int_utilization_hour_bins' hours. Histograms of
-- partitions add up, so utilization_cdf merges them and an incremental run recounts only the partitions it
-- rebuilds. Bin -1 holds the samples below the grid, bin `bins` those above it; a linear grid's bins are
-- [lower, upper), its last one [lower, upper]. Edges are rounded to 9 decimals, so engines agree on them to
-- the digit.
{{ config(**partition_replace_config()) }}

with

bins as (
    select * from {{ ref('int_utilization_hour_bins') }}
    where {{ partition_window() }} and bin_index is not null
),

grid as (
    select * from {{ ref('utilization_grid') }}
),

counted as (
    select
        bins.cluster_name,
        bins.metric,
        grid.plotted_unit,
        grid.grid_kind,
        grid.grid_min,
        grid.grid_max,
        grid.bins,
        bins.bin_index,
        sum(bins.samples) as samples,
        sum(bins.real_samples) as real_samples,
        sum(bins.synthetic_samples) as synthetic_samples,
        bins._partition
    from bins
    inner join grid on bins.metric = grid.metric
    group by
        bins.cluster_name, bins.metric, grid.plotted_unit, grid.grid_kind, grid.grid_min, grid.grid_max, grid.bins,
        bins.bin_index, bins._partition
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
