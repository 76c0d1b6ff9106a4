"""Quarantine files from the violating rows GX reports: DuckDB writes them straight to Parquet.

Every quarantine rule that found rows contributes GX's own query of its violating rows (``Findings.query``),
with the row key, the partition, the rule name and the offending values as text; DuckDB gathers them in
one small table of the session's catalog and copies each unit's rows to its file
(``lake/quarantine/<family>/_partition=<key>/<unit stem>.parquet``, temp file + rename). No row passes through
Python, so a rule that quarantines millions of rows still runs in bounded memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pipelines.atomic_write import replacing
from pipelines.lake import quarantine
from pipelines.lake.relation import FILE_COLUMN, ident, lit
from pipelines.settings import Settings
from pipelines.validate.findings import Findings, violating_rows_sql

if TYPE_CHECKING:
    from pipelines.validate.gx_suites import LakeSession
    from pipelines.validate.units import Unit

TABLE = "quarantine_rows"


def write_units(
    settings: Settings,
    family: str,
    session: LakeSession,
    units: Sequence[Unit],
    findings: Sequence[Findings],
) -> dict[tuple[str, str], int]:
    """Replace the quarantine files of ``units``; returns the distinct raw rows quarantined per unit file
    (``Unit.file``; absent: none). The findings' rows carry ``FILE_COLUMN``."""
    for unit in units:
        quarantine.unit_path(settings, family, unit.partition, unit.stem).unlink(missing_ok=True)
    keys = list(quarantine.row_key(family))
    key_cols = ", ".join(ident(c) for c in keys)
    selects = []
    for found in findings:
        if not found.count or found.query is None:
            continue
        rows = violating_rows_sql(found, extra=[*keys, FILE_COLUMN])
        selects.append(
            f"select {key_cols}, {FILE_COLUMN}, {lit(found.rule.name)} as rule, details from ({rows})"
        )
    if not selects:
        return {}
    session.execute(f"create or replace table {TABLE} as {' union all '.join(selects)}")
    by_file = {u.file: u for u in units}
    counts = session.rows(
        f"select {FILE_COLUMN}, count(*) as n from "
        f"(select distinct {key_cols}, {FILE_COLUMN} from {TABLE}) group by all"
    )
    out: dict[str, int] = {}
    for row in counts:
        unit = by_file[str(row[FILE_COLUMN])]
        out[unit.file] = int(row["n"])
        target = quarantine.unit_path(settings, family, unit.partition, unit.stem)
        with replacing(target) as tmp:
            session.execute(
                f"copy (select {key_cols}, rule, details from {TABLE} where {FILE_COLUMN} = {lit(unit.file)} "
                f"order by {key_cols}, rule) to {lit(str(tmp))} (format parquet, compression zstd)"
            )
    session.execute(f"drop table {TABLE}")
    return out
