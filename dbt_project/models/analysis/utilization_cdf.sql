-- Grain: one cluster, utilization metric and non-empty bin of its fixed grid: the notebook's utilization
-- CDFs (GPU_UTIL, SM_ACTIVE, FB_USED as % of 80 GiB, temperatures, power, node CPU/memory/IB, ...) merged
-- from the per-partition histograms. cumulative_share is the share of samples below bin_upper (at or below,
-- for the grid's last bin); a percentile read off it is exact to within its bin (grid_error).
with

histogram as (
    select * from {{ ref('utilization_histogram') }}
),

merged as (
    select
        cluster_name,
        metric,
        plotted_unit,
        bin_index,
        min(bin_lower) as bin_lower,
        min(bin_upper) as bin_upper,
        sum(samples) as samples,
        sum(real_samples) as real_samples,
        sum(synthetic_samples) as synthetic_samples
    from histogram
    group by cluster_name, metric, plotted_unit, bin_index
),

accumulated as (
    select
        *,
        sum(samples) over (
            partition by cluster_name, metric order by bin_index rows between unbounded preceding and current row
        ) as cumulative_samples,
        sum(samples) over (partition by cluster_name, metric) as total_samples,
        sum(real_samples) over (partition by cluster_name, metric) as total_real,
        sum(synthetic_samples) over (partition by cluster_name, metric) as total_synthetic
    from merged
),

final as (
    select
        cast(cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(metric as {{ dbt.type_string() }}) as metric,
        cast(plotted_unit as {{ dbt.type_string() }}) as plotted_unit,
        cast(bin_index as {{ dbt.type_int() }}) as bin_index,
        cast(bin_lower as {{ type_double() }}) as bin_lower,
        cast(bin_upper as {{ type_double() }}) as bin_upper,
        cast(bin_upper - bin_lower as {{ type_double() }}) as grid_error,
        cast(samples as {{ dbt.type_bigint() }}) as samples,
        cast(cumulative_samples as {{ dbt.type_bigint() }}) as cumulative_samples,
        cast(cast(cumulative_samples as {{ type_double() }}) / total_samples as {{ type_double() }})
            as cumulative_share,
        cast(
            case
                when total_real = total_samples then 'real'
                when total_synthetic = total_samples then 'synthetic'
                else 'mixed'
            end
            as {{ dbt.type_string() }}
        ) as data_origin
    from accumulated
)

select * from final
