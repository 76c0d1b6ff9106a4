"""The views ``trace.duckdb`` keeps over the lake — the one place that (re)creates them.

- ``raw.<family>``: every partition file of the family (an empty typed relation once a load recorded its
  columns but wrote no row; none before its first load);
- ``quarantine.<family>``: the rows validation quarantined (an empty typed relation before any);
- ``cells.<family>__lines`` / ``cells.<family>__series``: the cells the load counted of a wide family's lake
  files (``pipelines/lake/cells.py``), once there are any (dbt's ``on-run-start`` types them before);
- ``raw.load_rejects``: every rejected line of every file;
- ``meta.landed_files`` / ``meta.file_loads``: the landing manifest and the per-file load states;
- ``analysis.<table>`` over a single Parquet file a Python step wrote (the fits of ``pipelines/analysis``);
- ``meta.dbt_engine``: which engine built the dbt models ``trace.duckdb`` shows (:func:`record_engine`).

The views hold no data: refreshing them is cheap, so a writer refreshes every view of the families it
touched (call under :func:`pipelines.warehouse.db.writer`). A view whose body is unchanged (its SQL's hash
is the view's comment) is not re-created, so a refresh that changed no view leaves ``trace.duckdb``
untouched and the writer does not copy it to the reader snapshot again. dbt's ``on-run-start`` macro
``create_raw_relations`` makes the same relations for a bare ``dbt build`` and on Spark
(docs/pages/architecture.md, Spark).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path

import duckdb

from pipelines.lake import cells, quarantine
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

VIEW_SCHEMAS = ("raw", "quarantine", "cells", "meta")  # the schemas of the views over the lake
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
    for schema in VIEW_SCHEMAS:
        con.execute(f"create schema if not exists {schema}")
    current = _view_hashes(con)
    created = []
    for fam in families:
        body = raw_view_sql(settings, fam)
        if body is not None:
            _view(con, current, "raw", fam, body)
            created.append(f"raw.{fam}")
        _view(con, current, "quarantine", fam, quarantine.view_sql(settings, fam))
        for kind in cells.KINDS:
            folder = cells.cells_dir(settings, fam, kind)
            if has_partition_files(folder):
                _view(
                    con,
                    current,
                    "cells",
                    cells.source_name(fam, kind),
                    f"select * from {partitioned_scan(folder)}",
                )
    rejects = settings.rejects_dir
    if any(rejects.glob("*/*.parquet")):
        body = f"select * from {parquet_scan(rejects / '*' / '*.parquet', hive=False)}"
    else:
        body = empty_select(REJECTS_COLUMNS)
    _view(con, current, "raw", "load_rejects", body)
    _meta_view(con, current, "landed_files", settings.manifest_dir, "**/*.json")
    _meta_view(con, current, "file_loads", settings.lake_dir / "_state", "*/*.json")
    return created


def refresh_file_views(con: duckdb.DuckDBPyConnection, schema: str, files: Mapping[str, Path]) -> None:
    """``<schema>.<name>`` over each Parquet file of ``files`` (name → path). The files are replaced in place
    by their writer, so the views stay as they are and ``trace.duckdb`` is written only the first time."""
    con.execute(f"create schema if not exists {ident(schema)}")
    current = _view_hashes(con, (schema,))
    for name, path in files.items():
        _view(con, current, schema, name, f"select * from {parquet_scan(path, hive=False)}")


def record_engine(con: duckdb.DuckDBPyConnection, engine: str, location: Path | None = None) -> None:
    """``meta.dbt_engine``: which engine built the dbt models that ``trace.duckdb`` shows, and when."""
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="seconds")
    con.execute("create schema if not exists meta")
    con.execute(
        "create or replace view meta.dbt_engine as select "
        f"{lit(engine)} as engine, cast({lit(now)} as timestamp) as built_at_utc, "
        f"cast({lit(str(location)) if location else 'null'} as varchar) as tables_location"
    )


def _view_hashes(
    con: duckdb.DuckDBPyConnection, schemas: Sequence[str] = VIEW_SCHEMAS
) -> dict[tuple[str, str], str]:
    """``(schema, view) → comment`` of the views in ``schemas`` (by default the ones over the lake)."""
    rows = con.execute(
        "select schema_name, view_name, coalesce(comment, '') from duckdb_views() "
        "where list_contains(?, schema_name)",
        [list(schemas)],
    ).fetchall()
    return {(schema, name): comment for schema, name, comment in rows}


def _view(
    con: duckdb.DuckDBPyConnection, current: dict[tuple[str, str], str], schema: str, name: str, body: str
) -> None:
    """Create or replace view ``schema.name`` unless it already has exactly this body."""
    digest = "sha1:" + hashlib.sha1(body.encode()).hexdigest()
    if current.get((schema, name)) == digest:
        return
    view = f"{ident(schema)}.{ident(name)}"
    con.execute(f"create or replace view {view} as {body}")
    con.execute(f"comment on view {view} is {lit(digest)}")


def _meta_view(
    con: duckdb.DuckDBPyConnection, current: dict[tuple[str, str], str], name: str, folder: Path, pattern: str
) -> None:
    if folder.is_dir() and any(folder.glob(pattern)):
        glob = lit(str(folder / pattern))
        _view(con, current, "meta", name, f"select * from read_json({glob}, union_by_name=true)")
