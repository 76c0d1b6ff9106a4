"""Suite of ``acme__node_metrics``: the Prometheus node metric files, unpivoted to one row per node and
sample. Node CPU utilization may exceed 100 % (Kalos max 238.9 % [V]): flagged by its own rule, kept."""

from __future__ import annotations

from expectations.acme.utilization import COLUMNS, ROW_KEY, percentage_rule, series_rules
from expectations.rules import Rule, Suite, between

SUITE = Suite(
    family="acme__node_metrics",
    columns=COLUMNS,
    row_index=ROW_KEY,
    rules=(
        *series_rules(),
        percentage_rule(("NODE_MEMORY_UTILIZATION",)),
        Rule(
            "cpu_utilization_within_0_100",
            "flag",
            "NODE_CPU_UTILIZATION is a percentage (0-100) but can exceed 100 % (Kalos max 238.9 %): "
            "flagged, kept.",
            between("cpu_percent", min_value=0, max_value=100),
            derived={"cpu_percent": "case when metric = 'NODE_CPU_UTILIZATION' then value end"},
            columns=("metric", "series", "value"),
        ),
    ),
)
