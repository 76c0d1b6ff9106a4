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

GX counts a batch's rows with a query of its own (``table.row_count``), which for a frame view scans the view
and computes its joins once more (seconds at the real utilization size). A frame whose rows are exactly those
of a plain Parquet relation (the built-in frames: a left join on distinct keys keeps every row once) is
registered with ``count_rows_of``; the engine then answers that metric with ``count(*)`` of the relation, which
DuckDB reads from the Parquet footers. So is the frame of a sparse lookup's rows, or of a screened frame's:
its rules are counted against every row of the batch, which all the others pass. Such a frame is often
empty, and GX's unexpected counts, sums over its rows, come back NULL, which GX takes for an empty batch
(no rows evaluated): on a registered batch the engine answers them 0. Every other metric, and the row count
of any other batch or of a batch with a row condition, is GX's own.

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


ROW_COUNT = "table.row_count"  # its aggregate (count(*)) is what reaches a metric bundle
UNEXPECTED_COUNT = ".unexpected_count"  # suffix of a map metric's count (a sum of a CASE over the rows)
# (database file, table) -> the relation whose rows the table's are, one for one. Module-level because GX
# makes its execution engines itself (a batch's engine is not the one the datasource handed out before).
_row_sources: dict[tuple[str, str], str] = {}


def count_rows_of(database: str, table: str, relation: str) -> None:
    """The rows of ``table`` (or view) in DuckDB file ``database`` are, one for one, those of ``relation``."""
    _row_sources[(database, table)] = relation


def forget_row_sources(database: str) -> None:
    for key in [k for k in _row_sources if k[0] == database]:
        _row_sources.pop(key, None)


class DuckDBExecutionEngine(SqlAlchemyExecutionEngine):
    """GX's SQLAlchemy engine whose query results are read before their connection closes, and which counts
    a registered frame's rows from its source relation (see the module docstring)."""

    def _registered(self, computation: Any) -> str | None:
        """The relation registered for the batch a metric is computed on (``count_rows_of``), if any."""
        domain = computation.compute_domain_kwargs or {}
        batch_id = domain.get("batch_id") or self.batch_manager.active_batch_data_id
        table = getattr(self.batch_manager.batch_data_cache.get(batch_id or ""), "source_table_name", None)
        return _row_sources.get((str(self.engine.url.database), table)) if table else None

    def _row_source(self, computation: Any) -> str | None:
        if computation.metric_configuration.metric_name != ROW_COUNT:
            return None
        domain = computation.compute_domain_kwargs or {}
        if any(domain.get(k) for k in ("row_condition", "filter_conditions", "column", "column_A")):
            return None
        return self._registered(computation)

    def resolve_metric_bundle(self, metric_fn_bundle: Any) -> dict[Any, Any]:
        counted, rest = {}, []
        for computation in metric_fn_bundle:
            relation = self._row_source(computation)
            if relation is None:
                rest.append(computation)
                continue
            with self.get_connection() as connection:
                rows = connection.exec_driver_sql(f"select count(*) from {relation}").scalar_one()
            counted[computation.metric_configuration.id] = int(rows)
        resolved = super().resolve_metric_bundle(rest) if rest else {}
        for computation in rest:  # a sum of no rows is NULL, which GX reads as an empty batch
            key = computation.metric_configuration.id
            name = computation.metric_configuration.metric_name
            if (
                resolved.get(key) is None
                and name.endswith(UNEXPECTED_COUNT)
                and self._registered(computation)
            ):
                resolved[key] = 0
        return {**counted, **resolved}

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
