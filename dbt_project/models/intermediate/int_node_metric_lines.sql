-- Grain: one line of a utilization file as loaded (cluster, metric, file, line): its sample time, the
-- date and time-of-day keys of that time, the cells it holds, and whether another line of the same cluster
-- and metric carries the same time (time_repeated: its samples may repeat, so int_node_metrics_keyed
-- de-duplicates them). A wide file's line is one timestamp across its series, so this model has a row per
-- ~2,000 samples: it is what the facts' views join to, instead of a copy of every sample. A sample's lake
-- partition is its UTC date, so repeated times never cross partitions and the model is written partition
-- by partition (partition_replace_config; on DuckDB Parquet in the lake).
{{ config(**partition_replace_config()) }}

with

samples as (
    {{ utilization_samples() }}
),

-- A file and line number name one line; everything else is the line's own (one time, so one partition),
-- so the scan groups by those two alone.
lines as (
    select
        _source_file,
        _row_number,
        {{ dbt.any_value('cluster_name') }} as cluster_name,
        {{ dbt.any_value('metric_level') }} as metric_level,
        {{ dbt.any_value('metric') }} as metric,
        {{ dbt.any_value('sample_time_utc') }} as sample_time_utc,
        {{ dbt.any_value('_data_origin') }} as _data_origin,
        {{ dbt.any_value('_partition') }} as _partition,
        count(*) as cells
    from samples
    group by _source_file, _row_number
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
)

select * from final
