"""Great Expectations' SQL datasource on DuckDB, with the connection-lifetime defect fixed.

GX 1.x's ``SqlAlchemyExecutionEngine.execute_query`` runs a query inside ``with self.get_connection()`` and
returns the live cursor result *after* that block has closed the connection. On most drivers the rows are
still readable; on DuckDB (through duckdb-engine) the closed cursor yields nothing, so every metric comes back
empty and every expectation "passes" on zero rows. ``DuckDBExecutionEngine`` reads the rows while the
connection is open and returns them buffered (SQLAlchemy's frozen result: ``fetchall``, ``fetchmany``,
``fetchone``, ``scalar``, iteration and ``mappings`` all work). ``tests/unit/test_gx_duckdb.py`` fails
without it.

GX also reflects every batch's columns through SQLAlchemy's inspector; duckdb-engine's reflection queries
``pg_catalog`` tables DuckDB 2 no longer has, so GX falls back to ``SELECT * FROM <view> LIMIT 1`` — which
computes a whole window function for a frame such as time order within a file (seconds at scale). The
engine's inspector answers ``get_columns`` from DuckDB's own ``DESCRIBE`` instead.

``DuckDBDatasource`` is GX's ``SQLDatasource`` with that engine (a fluent datasource type ``duckdb``;
``context.data_sources.add_duckdb(...)`` once this module is imported). Upstream GX has no DuckDB datasource
yet. Importing this module imports Great Expectations (seconds): only the validation code does, on first use.
"""

from __future__ import annotations

from typing import Any, Literal

import sqlalchemy as sa
from great_expectations.datasource.fluent.sql_datasource import SQLDatasource
from great_expectations.execution_engine.sqlalchemy_execution_engine import SqlAlchemyExecutionEngine


class DuckDBInspector:
    """SQLAlchemy's inspector for a DuckDB engine, with column reflection from ``DESCRIBE``."""

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine
        self._inspector = sa.inspect(engine)

    def get_columns(self, table_name: str, schema: str | None = None, **_: Any) -> list[dict[str, Any]]:
        name = f'"{schema}"."{table_name}"' if schema else f'"{table_name}"'
        with self._engine.connect() as con:
            rows = con.exec_driver_sql(f"describe {name}").fetchall()
        return [{"name": r[0], "type": _sa_type(self._engine.dialect, r[1]), "nullable": True} for r in rows]

    def get_pk_constraint(self, table_name: str, schema: str | None = None, **_: Any) -> dict[str, Any]:
        return {"constrained_columns": [], "name": None}  # views over Parquet have no keys

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inspector, name)


def _sa_type(dialect: sa.Dialect, duckdb_type: str) -> Any:
    """The SQLAlchemy type of a DuckDB type name (``NullType`` for one SQLAlchemy does not know)."""
    names = getattr(dialect, "ischema_names", {})
    base = duckdb_type.split("(")[0].strip().lower()
    found = names.get({"double": "double precision", "float": "real"}.get(base, base))
    return found() if found is not None else sa.types.NullType()


class DuckDBExecutionEngine(SqlAlchemyExecutionEngine):
    """GX's SQLAlchemy engine whose query results are read before their connection closes."""

    def execute_query(self, query: Any) -> Any:
        with self.get_connection() as connection:
            result = self._execute_query_with_recovery(connection, query)
            return result.freeze()()  # every row fetched now, served from memory afterwards

    def get_inspector(self) -> Any:
        if self._inspector is None:
            self._inspector = DuckDBInspector(self.engine)
        return self._inspector


class DuckDBDatasource(SQLDatasource):
    """A GX SQL datasource over a DuckDB database (``duckdb:///<path>``) using ``DuckDBExecutionEngine``."""

    type: Literal["duckdb"] = "duckdb"  # type: ignore[assignment]

    @property
    def execution_engine_type(self) -> type[SqlAlchemyExecutionEngine]:
        return DuckDBExecutionEngine
