-- One row per non-empty cell of a Prometheus node metric file (long); see macros/stg_utilization_metrics.sql.
{{ stg_utilization_metrics('acme__node_metrics') }}
