"""Suite of ``acme__ipmi_power`` (Seren IPMI: ``GPU_AB_Power``, ``GPU_C_Power``, ``CPU_D_Power``).

The layout is verified only for ``Time`` and ``Sys_Total_Power``; other columns are header-driven. The
server type must be derivable for every row: in ``GPU_AB_Power.csv`` a row with a memory-power reading is
type A and one without is type B; ``GPU_C_Power`` rows are C; ``CPU_D_Power`` rows are D. A row of any other
file, or of a GPU_AB file without a ``Memory_Power`` column at all, has no derivable type.
"""

from __future__ import annotations

from expectations.rules import Rule, Suite, between, not_null, table_columns
from pipelines.families.schemas import IPMI

MAX_SERVER_POWER_W = 10_000  # an 8-GPU A100 server draws at most ~6.5 kW


def server_type_sql(columns: frozenset[str]) -> str:
    """A, B, C or D from the file name (and, in GPU_AB_Power, the memory-power reading); NULL otherwise."""
    # without a Memory_Power column at all, A and B cannot be told apart
    ab = "case when memory_power is not null then 'A' else 'B' end" if "memory_power" in columns else "null"
    return (
        f"case when regexp_matches(_source_file, '(^|/)GPU_AB_Power\\.csv$') then {ab} "
        "when regexp_matches(_source_file, '(^|/)GPU_C_Power\\.csv$') then 'C' "
        "when regexp_matches(_source_file, '(^|/)CPU_D_Power\\.csv$') then 'D' end"
    )


SUITE = Suite(
    family="acme__ipmi_power",
    columns=table_columns([(c.raw_name, c.type) for c in IPMI.columns]),
    rules=(
        Rule(
            "server_type_derivable",
            "flag",
            "Every IPMI row has a derivable server type: GPU_AB_Power → A with a memory-power reading, else "
            "B; GPU_C_Power → C; CPU_D_Power → D.",
            not_null("server_type"),
            derived={"server_type": server_type_sql},
            columns=("_source_file",),
            breakdown="server_type",
        ),
        Rule(
            "power_within_physical_range",
            "flag",
            f"Sys_Total_Power is a server's draw: 0-{MAX_SERVER_POWER_W:,} W.",
            between("sys_total_power", min_value=0, max_value=MAX_SERVER_POWER_W),
            columns=("sys_total_power",),
        ),
    ),
)
