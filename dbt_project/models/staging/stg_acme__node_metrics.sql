-- One row per non-empty cell of a Prometheus node metric file (long), as loaded (columns: see
-- macros/staging_columns.sql). A raw row is one cell, so the quarantine is matched on series too.
with

{{ passed_rows('acme__node_metrics', keys=['_source_file', '_row_number', 'series']) }},

final as (
    select
        'node' as metric_level,
        {{ utilization_sample_columns() }}
    from passed
)

select * from final
