-- Grain: one line of a utilization file as loaded (cluster, metric, file, line): its sample time, the
-- date and time-of-day keys of that time, the cells it holds, and whether another line of the same cluster
-- and metric carries the same time (time_repeated: its samples may repeat, so int_node_metrics_keyed
-- de-duplicates them). A wide file's line is one timestamp across its series, so this model has a row per
-- ~2,000 samples: it is what the facts' views join to, instead of a copy of every sample. The lines and
-- their cells are the ones the load counted (source cells), less the cells validation quarantined: no
-- sample is read. A sample's lake partition is its UTC date, so repeated times never cross partitions and
-- the model is written partition by partition (partition_replace_config; on DuckDB Parquet in the lake).
{{ config(**partition_replace_config()) }}
-- The raw assets write the counts, so the model depends on them:
-- depends_on: {{ source('raw', 'acme__gpu_metrics') }}
-- depends_on: {{ source('raw', 'acme__node_metrics') }}

with

loaded as (
    {{ counted_cells('lines') }}
),

quarantined as (
    select
        _source_file,
        _row_number,
        count(*) as cells
    from ({{ quarantined_cells() }}) as cells
    group by _source_file, _row_number
),

-- A file and line number name one line, counted in the one lake file that holds it.
lines as (
    select
        loaded.cluster_name,
        loaded.metric_level,
        loaded.metric,
        loaded._source_file,
        loaded._row_number,
        loaded.sample_time_utc,
        loaded._data_origin,
        loaded._partition,
        loaded.cells - coalesce(quarantined.cells, 0) as cells
    from loaded
    left join quarantined
        on
            loaded._source_file = quarantined._source_file
            and loaded._row_number = quarantined._row_number
),

final as (
    select
        cast(cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(metric_level as {{ dbt.type_string() }}) as metric_level,
        cast(metric as {{ dbt.type_string() }}) as metric,
        cast(_source_file as {{ dbt.type_string() }}) as _source_file,
        cast(_row_number as {{ dbt.type_bigint() }}) as _row_number,
        cast(sample_time_utc as {{ dbt.type_timestamp() }}) as sample_time_utc,
        {{ date_key('sample_time_utc') }} as sample_date_key,
        {{ time_of_day_key('sample_time_utc') }} as sample_time_of_day_key,
        cast(cells as {{ dbt.type_bigint() }}) as cells,
        count(*) over (partition by _partition, cluster_name, metric, sample_time_utc) > 1 as time_repeated,
        cast(_data_origin as {{ dbt.type_string() }}) as _data_origin,
        cast(_partition as {{ dbt.type_string() }}) as _partition
    from lines
    where cells > 0
)

select * from final
