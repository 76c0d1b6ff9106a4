"""The Great Expectations side: suites built from the rules, and one validation of a pandas batch.

One ephemeral GX context per process (creating it is cheap; importing ``great_expectations`` costs seconds,
so it happens on first use, never at import). Each (family, frame) has two suites: its quarantine rules run
with ``result_format`` COMPLETE — every violating row's ``(_source_file, _row_number[, series])`` comes
back — and every other rule with SUMMARY (counts and a few sample rows), so a flag that matches millions of
rows does not build million-element lists.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from expectations.rules import Rule

if TYPE_CHECKING:
    from great_expectations.core import ExpectationSuite, ExpectationSuiteValidationResult
    from great_expectations.core.batch_definition import BatchDefinition
    from great_expectations.data_context import AbstractDataContext

DATASOURCE = "trace_warehouse_lake"
SAMPLE_ROWS = 5

_lock = threading.Lock()
_context: AbstractDataContext | None = None
_suites: dict[str, ExpectationSuite] = {}
_batch_definitions: dict[str, BatchDefinition] = {}


def context() -> AbstractDataContext:
    """The process's ephemeral GX context (created on first use)."""
    global _context
    with _lock:
        if _context is None:
            import great_expectations as gx
            from great_expectations.data_context.types.base import ProgressBarsConfig

            ctx = gx.get_context(mode="ephemeral")
            ctx.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
            ctx.data_sources.add_pandas(DATASOURCE)
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


def suite(name: str, rules: Sequence[Rule]) -> ExpectationSuite:
    """The process's cached suite ``name`` (built on first use)."""
    context()
    with _lock:
        cached = _suites.get(name)
        if cached is None:
            cached = _suites[name] = build_suite(name, rules)
        return cached


def _batch_definition(asset_name: str) -> BatchDefinition:
    ctx = context()
    with _lock:
        found = _batch_definitions.get(asset_name)
        if found is None:
            source = ctx.data_sources.get(DATASOURCE)
            asset = source.add_dataframe_asset(asset_name)  # type: ignore[union-attr]
            found = asset.add_batch_definition_whole_dataframe("batch")
            _batch_definitions[asset_name] = found
        return found


def validate(
    frame: pd.DataFrame,
    suite_name: str,
    rules: Sequence[Rule],
    index: Sequence[str],
    *,
    complete: bool,
) -> ExpectationSuiteValidationResult:
    """Validate one pandas batch against the rules' expectations.

    ``complete``: every violating row's index columns are returned (``unexpected_index_list``); otherwise
    counts and ``SAMPLE_ROWS`` sample rows only (``partial_unexpected_index_list``, same shape).
    """
    gx_suite = suite(suite_name, rules)
    batch = _batch_definition(suite_name).get_batch(batch_parameters={"dataframe": frame})
    result_format: dict[str, Any] = {
        "result_format": "COMPLETE" if complete else "SUMMARY",
        "partial_unexpected_count": SAMPLE_ROWS,
    }
    if complete:
        result_format["unexpected_index_column_names"] = list(index)
    try:
        result = batch.validate(gx_suite, result_format=result_format)
    finally:
        _forget(batch)
    if not complete:
        _name_sample_rows(result, frame, index)
    return result


def _forget(batch: Any) -> None:
    """Drop GX's references to a validated batch: its execution engine keeps every batch's DataFrame by id
    (and the Batch) for the life of the process (measured: +240 MiB after one BurstGPT validation at scale
    0.5, growing with every family in a Dagster run)."""
    engine = context().data_sources.get(DATASOURCE).get_execution_engine()  # type: ignore[union-attr]
    engine.batch_manager.batch_data_cache.pop(batch.id, None)
    engine.batch_manager.reset_batch_cache()


def _name_sample_rows(
    result: ExpectationSuiteValidationResult, frame: pd.DataFrame, index: Sequence[str]
) -> None:
    """Turn SUMMARY's sample row labels into ``{index column: value}`` like COMPLETE's.

    GX fills ``unexpected_index_column_names`` one cell at a time (``DataFrame.at``) for *every* violating row,
    even when only a few samples are returned: minutes for a flag that matches millions of utilization
    values. Without it GX returns the frame's row labels, and the few samples are looked up here.
    """
    cols = list(index)
    for r in result.results:
        stats = r.result or {}
        labels = stats.get("partial_unexpected_index_list")
        if not labels or isinstance(labels[0], dict):
            continue
        rows = frame.loc[list(labels), cols]
        stats["partial_unexpected_index_list"] = [
            {c: _plain(v) for c, v in zip(cols, values, strict=True)}
            for values in rows.itertuples(index=False)
        ]
        stats["unexpected_index_column_names"] = cols


def _plain(value: Any) -> Any:
    """numpy scalars as Python values (JSON-serializable in the stored results)."""
    return value.item() if hasattr(value, "item") else value
