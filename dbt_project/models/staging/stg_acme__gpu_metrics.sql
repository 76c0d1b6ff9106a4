-- One row per non-empty cell of a DCGM GPU metric file (long); see macros/stg_utilization_metrics.sql.
{{ stg_utilization_metrics('acme__gpu_metrics') }}
