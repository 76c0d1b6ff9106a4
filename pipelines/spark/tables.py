"""The tables a Spark build wrote, read by DuckDB: ``trace-warehouse sql`` after ``run --engine spark``.

dbt on Spark writes each table model, incremental model and seed as Parquet under the Spark warehouse
(``$WAREHOUSE_DIR/spark/warehouse/<schema>.db/<table>/``, partitioned facts in ``_partition=<key>/``
folders). After a Spark build, :func:`publish_duckdb_views` replaces the same-named relations in
``trace.duckdb`` by views over those files, so readers query ``marts.fct_job`` whichever engine built it
(:mod:`pipelines.warehouse.spark_views` calls it with the writer after a Spark build, and records in
``meta.dbt_engine`` which engine built them). Spark views (staging, the per-row intermediates) are SQL, not
data: DuckDB keeps its own views of the same models (same SQL, same raw files) if a DuckDB build made them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipelines.lake.relation import (
    PARTITION_DIR_PREFIX,
    empty_select,
    ident,
    parquet_scan,
    partitioned_scan,
)
from pipelines.settings import Settings

VIEW_SCHEMAS = ("raw", "quarantine")  # Spark views over the lake: DuckDB has its own


@dataclass(frozen=True)
class SparkTable:
    schema: str
    name: str
    folder: Path
    partitioned: bool

    @property
    def has_files(self) -> bool:
        return any(self.folder.glob("**/*.parquet"))

    def select_sql(self) -> str:
        """A DuckDB SELECT over the table's Parquet files (``_partition`` as text, like the lake)."""
        if self.partitioned:
            return f"select * from {partitioned_scan(self.folder)}"
        return f"select * from {parquet_scan(self.folder / '*.parquet', hive=False)}"


def spark_warehouse_dir(settings: Settings) -> Path:
    """``spark.sql.warehouse.dir`` of the ``spark`` target (and of the local Thrift server)."""
    return settings.spark_dir / "warehouse"


def spark_tables(settings: Settings) -> list[SparkTable]:
    """Every table folder of the Spark warehouse (``<schema>.db/<table>``), views' schemas left out."""
    root = spark_warehouse_dir(settings)
    found = []
    for schema_dir in sorted(root.glob("*.db")):
        schema = schema_dir.name.removesuffix(".db")
        if schema in VIEW_SCHEMAS:
            continue
        for folder in sorted(
            p for p in schema_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
        ):
            partitioned = any(p.name.startswith(PARTITION_DIR_PREFIX) for p in folder.iterdir() if p.is_dir())
            found.append(SparkTable(schema, folder.name, folder, partitioned))
    return found


def _contract_columns(manifest: Mapping | None) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(schema, name) -> [(column, type)] of models with declared column types and of seeds with
    ``column_types`` covering every column (in the CSV's order): an empty table's shape. Spark writes no
    Parquet file for an empty table (a partitioned fact without rows, a header-only seed)."""
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for node in (manifest or {}).get("nodes", {}).values():
        if node.get("resource_type") == "model":
            columns = [(c["name"], c.get("data_type")) for c in node.get("columns", {}).values()]
        elif node.get("resource_type") == "seed":
            columns = list(node.get("config", {}).get("column_types", {}).items())
        else:
            continue
        if columns and all(t for _, t in columns):
            out[(node["schema"], node["alias"])] = columns  # type: ignore[assignment]
    return out


def publish_duckdb_views(
    con: duckdb.DuckDBPyConnection, settings: Settings, manifest: Mapping | None = None
) -> list[str]:
    """Replace ``<schema>.<table>`` in ``con`` by a view over each Spark table's Parquet; return the names.

    A partitioned table without rows has no files: its view is an empty relation typed from the model's
    contract when the manifest has one, else it is left out. Call it with the warehouse's writer connection.
    """
    contracts = _contract_columns(manifest)
    published = []
    for table in spark_tables(settings):
        name = f"{ident(table.schema)}.{ident(table.name)}"
        if table.has_files:
            body = table.select_sql()
        elif (table.schema, table.name) in contracts:
            body = empty_select(contracts[(table.schema, table.name)])
        else:
            continue
        con.execute(f"create schema if not exists {ident(table.schema)}")
        _drop_relation(con, table.schema, table.name)
        con.execute(f"create view {name} as {body}")
        published.append(f"{table.schema}.{table.name}")
    return published


def _drop_relation(con: duckdb.DuckDBPyConnection, schema: str, name: str) -> None:
    kind = con.execute(
        "select table_type from information_schema.tables where table_schema = ? and table_name = ?",
        [schema, name],
    ).fetchone()
    if kind:
        con.execute(f"drop {'view' if kind[0] == 'VIEW' else 'table'} {ident(schema)}.{ident(name)}")


def read_spark_table(settings: Settings, schema: str, name: str) -> tuple[Sequence[str], list[tuple]]:
    """Columns and rows of one Spark-built table, read with DuckDB (no JVM)."""
    table = next(t for t in spark_tables(settings) if (t.schema, t.name) == (schema, name))
    con = duckdb.connect()
    try:
        con.execute("set TimeZone = 'UTC'")
        rel = con.sql(table.select_sql())
        return rel.columns, rel.fetchall()
    finally:
        con.close()


def table_names(tables: Iterable[SparkTable]) -> list[str]:
    return [f"{t.schema}.{t.name}" for t in tables]
