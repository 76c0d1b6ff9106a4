-- One row per IPMI sample line that passed validation. Header-driven: the server id (ip, node, host or
-- server; NULL when the header has none) and the component power columns when the file has them. The file
-- (GPU_AB_Power, GPU_C_Power, CPU_D_Power) is kept.
{%- set raw_relation = source('raw', 'acme__ipmi_power') %}
with

{{ passed_rows('acme__ipmi_power') }},

final as (
    select
        'seren' as cluster_name,
        replace({{ dbt.split_part('_source_file', "'/'", -1) }}, '.csv', '') as ipmi_file,
        coalesce(ip, node, host, server) as server_id,
        time as sample_time_utc,
        time_utc_offset as utc_offset,
        {{ utc_to_local('time', 'time_utc_offset') }} as sample_time_local,
        sys_total_power as sys_total_power_w,
        {{ first_present_column(raw_relation, ['cpu_power'], type_double()) }} as cpu_power_w,
        {{ first_present_column(raw_relation, ['memory_power', 'mem_power'], type_double()) }} as memory_power_w,
        {{ lineage_columns() }}
    from passed
)

select * from final
