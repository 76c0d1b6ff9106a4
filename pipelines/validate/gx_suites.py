"""The Great Expectations side: suites built from the rules, and validations run as SQL inside DuckDB.

One ephemeral GX context per process (importing ``great_expectations`` costs seconds, so it happens on first
use, never at import). A ``LakeSession`` is one family's validation: a small DuckDB catalog file of views over
the raw lake's Parquet files (``read_parquet``, never a copy), registered with GX through ``DuckDBDatasource``
(``gx_duckdb.py``); every frame batch is a view, validated as a GX table asset. What is computed once and read
by several queries (a lookup, a custom frame's join, a rule's violating rows) is kept as a table of the
session (``LakeSession.keep``).

Results use ``result_format`` SUMMARY with ``partial_unexpected_count`` 0 and ``return_unexpected_index_query``:
GX computes every expectation's counts in SQL and returns, per expectation, its ``unexpected_index_query`` —
the SELECT of the violating rows with their key and detail columns — without pulling rows into Python
(COMPLETE would fetch every violating value: millions for a common flag at full scale). The validation then runs
those queries where it needs rows: a few samples, the per-unit counts, and the quarantine, which DuckDB
writes straight to Parquet (memory stays bounded however many rows violate a rule).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from expectations.rules import Rule
from pipelines.lake.relation import ident
from pipelines.settings import Settings

if TYPE_CHECKING:
    from great_expectations.core import ExpectationSuite, ExpectationSuiteValidationResult
    from great_expectations.data_context import AbstractDataContext

SAMPLE_ROWS = 5
VALIDATION_DUCKDB_MEMORY = "1GB"
IN_MEMORY = "session_memory"  # the session's attached in-memory database (LakeSession.keep)

_lock = threading.Lock()
_context: AbstractDataContext | None = None
_suites: dict[tuple[str, str, tuple[str, ...]], ExpectationSuite] = {}


def context() -> AbstractDataContext:
    """The process's ephemeral GX context (created on first use)."""
    global _context
    with _lock:
        if _context is None:
            import great_expectations as gx
            from great_expectations.data_context.types.base import ProgressBarsConfig

            import pipelines.validate.gx_duckdb  # noqa: F401  (registers the "duckdb" datasource type)

            ctx = gx.get_context(mode="ephemeral")
            ctx.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
            _context = ctx
        return _context


def _severity(rule: Rule) -> str:
    return {"structural": "critical", "quarantine": "warning"}.get(rule.kind, "info")


def build_suite(name: str, rules: Sequence[Rule]) -> ExpectationSuite:
    """A new GX suite ``name`` holding one expectation per rule (``meta.rule`` names the rule)."""
    from great_expectations.core import ExpectationSuite
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

    gx_suite = ExpectationSuite(name=name)
    for rule in rules:
        kwargs: dict[str, Any] = dict(rule.expect.kwargs)
        if rule.threshold > 0:
            kwargs["mostly"] = 1.0 - rule.threshold  # GX's own pass/fail then matches the check's
        config = ExpectationConfiguration(
            type=rule.expect.type,
            kwargs=kwargs,
            meta={"rule": rule.name, "kind": rule.kind, "threshold": rule.threshold},
            description=f"**{rule.name}** ({rule.kind}): {rule.description}",
            severity=_severity(rule),  # type: ignore[arg-type]
        )
        gx_suite.add_expectation(config.to_domain_obj())
    return gx_suite


def suite(name: str, version: str, rules: Sequence[Rule]) -> ExpectationSuite:
    """The process's cached suite ``name`` at ``version`` of ``rules`` (built on first use; a frame's rules
    may run in two suites, see ``frames.sparse_groups``)."""
    context()
    key = (name, version, tuple(r.name for r in rules))
    with _lock:
        cached = _suites.get(key)
        if cached is None:
            cached = _suites[key] = build_suite(name, rules)
        return cached


def unexpected_rows_query(result: Any) -> str | None:
    """GX's SELECT of one expectation's violating rows (index columns first), without its semicolon."""
    query = (result.result or {}).get("unexpected_index_query")
    return str(query).strip().rstrip(";") if query else None


class LakeSession:
    """One family's validation: GX's DuckDB datasource over a catalog of views (see the module docstring)."""

    def __init__(self, settings: Settings, family: str) -> None:
        ctx = context()
        tmp = settings.warehouse_dir / ".tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        token = uuid.uuid4().hex[:12]
        self.path: Path = tmp / f"gx-{family}-{token}.duckdb"
        self.name = f"lake_{family}_{token}"
        with _lock:
            source = ctx.data_sources.add_duckdb(  # type: ignore[attr-defined]
                self.name, connection_string=f"duckdb:///{self.path}"
            )
        self.source = source
        self.engine = source.get_execution_engine().engine
        # Global settings of this (in-process) database, shared by GX's connections and ours.
        for setting in (
            f"memory_limit = '{VALIDATION_DUCKDB_MEMORY}'",
            f"temp_directory = '{tmp / ('spill-' + token)}'",
            "TimeZone = 'UTC'",
            "parquet_metadata_cache = true",
        ):
            self.execute(f"set global {setting}")
        self.execute(f"attach ':memory:' as {IN_MEMORY}")
        self._batches: dict[str, Any] = {}

    def execute(self, sql: str) -> None:
        """Run one statement (committed)."""
        with self.engine.begin() as con:
            con.exec_driver_sql(sql)

    def rows(self, sql: str) -> list[dict[str, Any]]:
        with self.engine.connect() as con:
            return [dict(r) for r in con.exec_driver_sql(sql).mappings().fetchall()]

    def columns(self, relation: str) -> dict[str, str]:
        """Column name → DuckDB type of a relation (reads Parquet metadata only)."""
        return {r["column_name"]: r["column_type"] for r in self.rows(f"describe select * from {relation}")}

    def keep(self, name: str, sql: str, *, in_memory: bool = False) -> str:
        """The rows of ``sql`` as table ``name`` of the catalog (gone with the session); returns a SELECT.
        ``in_memory``: in the session's in-memory database, for a table read once or twice right after it is
        written and then replaced (a frame's rows): the file's compressed storage costs more to write than
        those reads save. Tables read again later (lookups, violating rows) stay in the file, which holds
        them compressed under the memory limit."""
        table = f"{IN_MEMORY}.{ident(name)}" if in_memory else ident(name)
        self.execute(f"create or replace table {table} as {sql}")
        return f"select * from {table}"

    def view(self, name: str, sql: str) -> str:
        """Create (or replace) view ``name`` as ``sql``; returns the name."""
        self.execute(f"create or replace view {ident(name)} as {sql}")
        return name

    def validate(
        self,
        view: str,
        suite_name: str,
        version: str,
        rules: Sequence[Rule],
        index: Sequence[str],
        rows_of: str | None = None,
    ) -> ExpectationSuiteValidationResult:
        """Validate the rows of ``view`` against the rules' expectations (see the module docstring for what
        comes back). ``index``: the columns each violating row is reported with. ``rows_of``: a Parquet
        relation whose rows are the view's, one for one; GX's row count is then read from its footers."""
        batch_definition = self._batches.get(view)
        if batch_definition is None:
            asset = self.source.add_table_asset(view, table_name=view)
            batch_definition = self._batches[view] = asset.add_batch_definition_whole_table("all")
        result_format = {
            "result_format": "SUMMARY",
            "partial_unexpected_count": 0,
            "unexpected_index_column_names": list(index),
            "return_unexpected_index_query": True,
        }
        if rows_of is not None:
            from pipelines.validate.gx_duckdb import count_rows_of

            count_rows_of(str(self.path), view, rows_of)
        batch = batch_definition.get_batch()
        return batch.validate(suite(suite_name, version, rules), result_format=result_format)

    def close(self) -> None:
        from pipelines.validate.gx_duckdb import forget_row_sources

        forget_row_sources(str(self.path))
        ctx = context()
        with _lock:
            ctx.data_sources.delete(self.name)
        self.engine.dispose()
        for suffix in ("", ".wal"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def __enter__(self) -> LakeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
