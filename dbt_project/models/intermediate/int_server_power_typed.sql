-- One row per IPMI sample (Seren) with its server type: GPU_AB_Power rows without a memory-power reading
-- are type B, the rest A; GPU_C_Power is C; CPU_D_Power is D (CPU servers). Types A-C are GPU servers.
with

power as (
    select * from {{ ref('stg_acme__ipmi_power') }}
),

final as (
    select
        cluster_name,
        server_id as node_id,
        ipmi_file,
        case
            when ipmi_file = 'GPU_AB_Power' and memory_power_w is null then 'B'
            when ipmi_file = 'GPU_AB_Power' then 'A'
            when ipmi_file = 'GPU_C_Power' then 'C'
            when ipmi_file = 'CPU_D_Power' then 'D'
        end as server_type,
        sample_time_utc,
        utc_offset,
        sys_total_power_w,
        cpu_power_w,
        memory_power_w,
        _source_file,
        _row_number,
        _data_origin,
        _partition
    from power
)

select * from final
