-- One row per server type (A, B, C = GPU servers, D = CPU servers; Seren IPMI): samples, servers, and the
-- distribution of whole-server power with mean component power.
with

power as (
    select * from {{ ref('fct_server_power') }}
),

-- One percentile state for both fractions (an exact percentile holds every value of its group).
by_type as (
    select
        server_type,
        count(*) as samples,
        count(distinct case when node_key != {{ unknown_key() }} then node_key end) as servers,
        avg(sys_total_power_w) as mean_sys_total_power_w,
        {{ percentiles_cont('sys_total_power_w', [0.5, 0.95]) }} as sys_total_power_percentiles,
        max(sys_total_power_w) as max_sys_total_power_w,
        avg(cpu_power_w) as mean_cpu_power_w,
        avg(memory_power_w) as mean_memory_power_w
    from power
    group by server_type
),

final as (
    select
        server_type,
        samples,
        servers,
        mean_sys_total_power_w,
        {{ array_at('sys_total_power_percentiles', 1) }} as p50_sys_total_power_w,
        {{ array_at('sys_total_power_percentiles', 2) }} as p95_sys_total_power_w,
        max_sys_total_power_w,
        mean_cpu_power_w,
        mean_memory_power_w
    from by_type
)

select * from final
