-- Grain: one series (column name of a wide utilization file) of a cluster and metric in one lake
-- partition, with the cells it holds there: the cells the load counted per series of each lake file
-- (source cells), less the cells validation quarantined; no sample is read. int_node_series parses the
-- series of every partition once; an incremental run recounts only the partitions it rebuilds
-- (partition_replace_config; on DuckDB Parquet in the lake).
{{ config(**partition_replace_config()) }}
-- The raw assets write the counts, so the model depends on them:
-- depends_on: {{ source('raw', 'acme__gpu_metrics') }}
-- depends_on: {{ source('raw', 'acme__node_metrics') }}

with

loaded as (
    {{ counted_cells('series') }}
),

quarantined as (
    select
        _source_file,
        series,
        _partition,
        count(*) as cells
    from ({{ quarantined_cells() }}) as cells
    group by _source_file, series, _partition
),

-- A series has a count in each lake file of the partition that holds it (a file's parts included); the
-- quarantined cells of a file are taken from its counts once.
files as (
    select
        cluster_name,
        metric_level,
        metric,
        _source_file,
        series,
        _partition,
        sum(cells) as cells
    from loaded
    group by cluster_name, metric_level, metric, _source_file, series, _partition
),

final as (
    select
        cast(files.cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(files.metric_level as {{ dbt.type_string() }}) as metric_level,
        cast(files.metric as {{ dbt.type_string() }}) as metric,
        cast(files.series as {{ dbt.type_string() }}) as series,
        cast(sum(files.cells - coalesce(quarantined.cells, 0)) as {{ dbt.type_bigint() }}) as cells,
        cast(files._partition as {{ dbt.type_string() }}) as _partition
    from files
    left join quarantined
        on
            files._source_file = quarantined._source_file
            and files.series = quarantined.series
            and files._partition = quarantined._partition
    group by files.cluster_name, files.metric_level, files.metric, files.series, files._partition
    having sum(files.cells - coalesce(quarantined.cells, 0)) > 0
)

select * from final
