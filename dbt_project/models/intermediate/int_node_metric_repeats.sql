-- Grain: one sample that may repeat another (macros/utilization_samples.sql, may_repeat_keys: on a line whose
-- time another line repeats, or of a series that shares its node and GPU with another, that day), kept:
-- the first _row_number of its cluster, metric, node, GPU and time, with duplicate_samples counting the
-- repeats dropped. Few rows: int_node_metrics_keyed shows every other sample as it stands and these beside
-- them, so no query of the fact ranks samples. Partition by partition (partition_replace_config; on DuckDB
-- Parquet in the lake).
{{ config(**partition_replace_config()) }}

with

-- The samples twice, one scan per kind of key (two CTEs, not one read twice, which DuckDB would materialize).
-- A semi join reads nothing when its keys are empty and only the partitions they name otherwise, so a
-- partition without repeats costs no scan. One scan probing both keys reads and probes every sample: at two
-- days of every utilization file, with repeats in two of three partitions, 11.5 s against 10.3 s.
line_samples as (
    {{ utilization_samples() }}
),

series_samples as (
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

{{ may_repeat_keys() }},

-- The files that hold a shared series, from the load's counts of each file's series (source cells).
shared_files as (
    select distinct counted._source_file
    from ({{ counted_cells('series') }}) as counted
    semi join shared_series
        on
            counted._partition = shared_series._partition
            and counted.series = shared_series.series
),

-- On a repeated line, or else of a shared series (each sample once). Semi and anti joins on plain
-- equalities: as EXISTS subqueries, DuckDB matches on IS NOT DISTINCT FROM, twice as slow. The partition is
-- matched as a range: DuckDB hashes every equality key of every sample it probes, and the partition, a
-- string, doubled the join's time; a range is tested only on the samples whose line or series matched. The
-- join to shared_files adds nothing to the match (a sample's file holds its series) but names the files:
-- with the row groups' min/max of _source_file and _row_number (pipelines/lake/parquet_files.py) the scans
-- read only the row groups of the repeated lines and the files of the shared series. A day of every
-- utilization file of the real-width sample: 7.2 s to 1.4 s.
may_repeat as (
    select line_samples.*
    from line_samples
    semi join repeated_lines
        on
            line_samples._row_number = repeated_lines._row_number
            and line_samples._partition >= repeated_lines._partition
            and line_samples._partition <= repeated_lines._partition
    union all
    select series_samples.*
    from series_samples
    semi join shared_files
        on series_samples._source_file = shared_files._source_file
    semi join shared_series
        on
            series_samples.series = shared_series.series
            and series_samples._partition >= shared_series._partition
            and series_samples._partition <= shared_series._partition
    anti join repeated_lines
        on
            series_samples._row_number = repeated_lines._row_number
            and series_samples._partition >= repeated_lines._partition
            and series_samples._partition <= repeated_lines._partition
),

ranked as (
    select
        may_repeat.cluster_name,
        may_repeat.metric_level,
        may_repeat.metric,
        may_repeat.series,
        series.series_kind,
        series.node_id,
        series.node_alias,
        series.gpu_index,
        series.cluster_key,
        series.node_key,
        series.gpu_key,
        series.unit,
        may_repeat.sample_time_utc,
        may_repeat.utc_offset,
        may_repeat.value,
        may_repeat._source_file,
        may_repeat._row_number,
        may_repeat._data_origin,
        may_repeat._partition,
        row_number() over (
            partition by
                may_repeat._partition, may_repeat.cluster_name, may_repeat.metric, series.node_id,
                series.gpu_index, may_repeat.sample_time_utc
            order by may_repeat._row_number, may_repeat._source_file, series.series_kind
        ) as occurrence,
        count(*) over (
            partition by
                may_repeat._partition, may_repeat.cluster_name, may_repeat.metric, series.node_id,
                series.gpu_index, may_repeat.sample_time_utc
        ) - 1 as duplicate_samples
    from may_repeat
    inner join series
        on
            may_repeat.cluster_name = series.cluster_name
            and may_repeat.metric = series.metric
            and may_repeat.series = series.series
),

final as (
    select
        cast(cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(metric_level as {{ dbt.type_string() }}) as metric_level,
        cast(metric as {{ dbt.type_string() }}) as metric,
        cast(series as {{ dbt.type_string() }}) as series,
        cast(series_kind as {{ dbt.type_string() }}) as series_kind,
        cast(node_id as {{ dbt.type_string() }}) as node_id,
        cast(node_alias as {{ dbt.type_string() }}) as node_alias,
        cast(gpu_index as {{ dbt.type_int() }}) as gpu_index,
        cast(cluster_key as {{ dbt.type_string() }}) as cluster_key,
        cast(node_key as {{ dbt.type_string() }}) as node_key,
        cast(gpu_key as {{ dbt.type_string() }}) as gpu_key,
        cast(unit as {{ dbt.type_string() }}) as unit,
        cast(sample_time_utc as {{ dbt.type_timestamp() }}) as sample_time_utc,
        {{ date_key('sample_time_utc') }} as sample_date_key,
        {{ time_of_day_key('sample_time_utc') }} as sample_time_of_day_key,
        cast(utc_offset as {{ dbt.type_string() }}) as utc_offset,
        cast(value as {{ type_double() }}) as value,
        cast(duplicate_samples as {{ dbt.type_bigint() }}) as duplicate_samples,
        cast(_source_file as {{ dbt.type_string() }}) as _source_file,
        cast(_row_number as {{ dbt.type_bigint() }}) as _row_number,
        cast(_data_origin as {{ dbt.type_string() }}) as _data_origin,
        cast(_partition as {{ dbt.type_string() }}) as _partition
    from ranked
    where occurrence = 1
)

select * from final
