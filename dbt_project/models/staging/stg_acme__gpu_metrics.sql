-- One row per non-empty cell of a DCGM GPU metric file (long), as loaded (columns: see
-- macros/staging_columns.sql). A raw row is one cell, so the quarantine is matched on series too.
with

{{ passed_rows('acme__gpu_metrics', keys=['_source_file', '_row_number', 'series']) }},

final as (
    select
        'gpu' as metric_level,
        {{ utilization_sample_columns() }}
    from passed
)

select * from final
