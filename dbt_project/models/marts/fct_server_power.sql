-- Grain: one row per IPMI sample line (Seren): whole-server and component power with the server type. Its
-- key is the line's provenance (_source_file, _row_number), tested unique.
{{ config(**partition_replace_config(row_wise=true)) }}

with

power as (
    select * from {{ ref('int_server_power_typed') }}
    where {{ partition_window() }}
),

final as (
    select
        cast({{ surrogate_key(['cluster_name']) }} as {{ dbt.type_string() }}) as cluster_key,
        cast({{ surrogate_key(['cluster_name', 'node_id']) }} as {{ dbt.type_string() }}) as node_key,
        {{ date_key('sample_time_utc') }} as sample_date_key,
        {{ time_of_day_key('sample_time_utc') }} as sample_time_of_day_key,
        cast(sample_time_utc as {{ dbt.type_timestamp() }}) as sample_time_utc,
        cast(server_type as {{ dbt.type_string() }}) as server_type,
        cast(ipmi_file as {{ dbt.type_string() }}) as ipmi_file,
        cast(sys_total_power_w as {{ type_double() }}) as sys_total_power_w,
        cast(cpu_power_w as {{ type_double() }}) as cpu_power_w,
        cast(memory_power_w as {{ type_double() }}) as memory_power_w,
        cast(_source_file as {{ dbt.type_string() }}) as _source_file,
        cast(_row_number as {{ dbt.type_bigint() }}) as _row_number,
        cast(_data_origin as {{ dbt.type_string() }}) as _data_origin,
        cast(_partition as {{ dbt.type_string() }}) as _partition
    from power
)

select * from final
