-- One row per GPU (natural key cluster_name + node_id + gpu_index 0-7) seen in the DCGM metrics, plus the
-- unknown member (node-level samples, which have no GPU).
with

series as (
    select * from {{ ref('int_node_series') }}
),

gpus as (
    select distinct
        cluster_name,
        node_id,
        gpu_index
    from series
    where gpu_index is not null
),

members as (
    select
        {{ surrogate_key(['cluster_name', 'node_id', 'gpu_index']) }} as gpu_key,
        {{ surrogate_key(['cluster_name', 'node_id']) }} as node_key,
        {{ surrogate_key(['cluster_name']) }} as cluster_key,
        cluster_name,
        node_id,
        gpu_index,
        {{ dbt.concat(['node_id', "'-'", 'cast(gpu_index as ' ~ dbt.type_string() ~ ')']) }} as gpu_label
    from gpus

    union all

    select
        {{ unknown_key() }} as gpu_key,
        {{ unknown_key() }} as node_key,
        {{ unknown_key() }} as cluster_key,
        'unknown' as cluster_name,
        'unknown' as node_id,
        -1 as gpu_index,
        'unknown' as gpu_label
),

final as (
    select
        cast(gpu_key as {{ dbt.type_string() }}) as gpu_key,
        cast(node_key as {{ dbt.type_string() }}) as node_key,
        cast(cluster_key as {{ dbt.type_string() }}) as cluster_key,
        cast(cluster_name as {{ dbt.type_string() }}) as cluster_name,
        cast(node_id as {{ dbt.type_string() }}) as node_id,
        cast(gpu_index as {{ dbt.type_int() }}) as gpu_index,
        cast(gpu_label as {{ dbt.type_string() }}) as gpu_label
    from members
)

select * from final
