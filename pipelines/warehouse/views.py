"""The views ``trace.duckdb`` keeps over the lake — the one place that (re)creates them.

- ``raw.<family>``: every partition file of the family (an empty typed relation once a load recorded its
  columns but wrote no row; none before its first load);
- ``quarantine.<family>``: the rows validation quarantined (an empty typed relation before any);
- ``raw.load_rejects``: every rejected line of every file;
- ``meta.landed_files`` / ``meta.file_loads``: the landing manifest and the per-file load states.

The views hold no data: refreshing them is cheap, so a writer refreshes every view of the families it
touched (call under :func:`pipelines.warehouse.db.writer`). dbt's ``on-run-start`` macro
``create_raw_relations`` makes the same relations for a bare ``dbt build`` and on Spark (DESIGN §8).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb

from pipelines.lake import quarantine
from pipelines.lake.relation import (
    empty_select,
    has_partition_files,
    ident,
    lit,
    parquet_scan,
    partitioned_scan,
)
from pipelines.lake.state import family_states
from pipelines.settings import Settings

REJECTS_COLUMNS = (
    ("family", "VARCHAR"), ("source_file", "VARCHAR"), ("line", "BIGINT"), ("column_name", "VARCHAR"),
    ("reason", "VARCHAR"), ("raw_text", "VARCHAR"), ("loaded_at", "TIMESTAMP"),
)  # fmt: skip


def raw_view_sql(settings: Settings, family: str) -> str | None:
    """The body of view ``raw.<family>``: every partition file, or an empty typed relation when none."""
    folder = settings.raw_dir / family
    if has_partition_files(folder):
        return f"select * from {partitioned_scan(folder)}"
    states = family_states(settings, family)
    if not states:
        return None
    columns: dict[str, str] = {}
    for st in states:
        columns.update({n: t for n, t in st.columns})
    return empty_select([*columns.items(), ("_partition", "VARCHAR")])


def refresh_views(con: duckdb.DuckDBPyConnection, settings: Settings, families: Sequence[str]) -> list[str]:
    """(Re)create ``raw.<family>`` and ``quarantine.<family>`` for each family, ``raw.load_rejects`` and the
    ``meta`` views; returns the raw views created."""
    for schema in ("raw", "quarantine", "meta"):
        con.execute(f"create schema if not exists {schema}")
    created = []
    for fam in families:
        body = raw_view_sql(settings, fam)
        if body is not None:
            con.execute(f"create or replace view raw.{ident(fam)} as {body}")
            created.append(f"raw.{fam}")
        con.execute(f"create or replace view quarantine.{ident(fam)} as {quarantine.view_sql(settings, fam)}")
    rejects = settings.rejects_dir
    if any(rejects.glob("*/*.parquet")):
        body = f"select * from {parquet_scan(rejects / '*' / '*.parquet', hive=False)}"
    else:
        body = empty_select(REJECTS_COLUMNS)
    con.execute(f"create or replace view raw.load_rejects as {body}")
    _meta_view(con, "meta.landed_files", settings.manifest_dir, "**/*.json")
    _meta_view(con, "meta.file_loads", settings.lake_dir / "_state", "*/*.json")
    return created


def _meta_view(con: duckdb.DuckDBPyConnection, name: str, folder: Path, pattern: str) -> None:
    if folder.is_dir() and any(folder.glob(pattern)):
        glob = lit(str(folder / pattern))
        con.execute(f"create or replace view {name} as select * from read_json({glob}, union_by_name=true)")
