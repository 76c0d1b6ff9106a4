-- Grain: one series (column name of a wide utilization file) of a cluster and metric in one lake
-- partition, with the cells it holds there. int_node_series parses the series of every partition once;
-- an incremental run recounts only the partitions it rebuilds (partition_replace_config; on DuckDB Parquet
-- in the lake).
{{ config(**partition_replace_config()) }}

with

samples as (
    {{ utilization_samples() }}
),

final as (
    select
        cast(cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(metric_level as {{ dbt.type_string() }}) as metric_level,
        cast(metric as {{ dbt.type_string() }}) as metric,
        cast(series as {{ dbt.type_string() }}) as series,
        cast(count(*) as {{ dbt.type_bigint() }}) as cells,
        cast({{ dbt.any_value('_partition') }} as {{ dbt.type_string() }}) as _partition
    from samples
    -- A utilization partition is a UTC date: grouped as one, DuckDB hashes a date instead of the text it
    -- reads from the lake's folder names, and the scan takes two thirds of the time.
    group by cluster_name, metric_level, metric, series, cast(_partition as date)
)

select * from final
