-- Fails on every IPMI line (_source_file, _row_number) that fct_server_power holds more than once. A line's
-- row lives in the partition of its time's date, so a partition-wise build checks the partitions it rebuilt
-- (var partition_keys), a full build all of them.

with

power as (
    select * from {{ ref('fct_server_power') }}
    where {{ named_partitions() }}
),

final as (
    select
        _source_file,
        _row_number,
        count(*) as copies
    from power
    group by _source_file, _row_number
    having count(*) > 1
)

select * from final
