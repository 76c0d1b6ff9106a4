"""GX's SQL datasource on DuckDB: stock GX reads its query results after the connection closed and sees no
rows; ``DuckDBDatasource`` (``pipelines/validate/gx_duckdb.py``) returns them buffered, so column, derived
column and column-pair expectations resolve with the right counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipelines.validate.gx_suites import context

ROWS = 1_000
BAD = 7  # rows 0..6: negative request tokens, and Total ≠ Request + Response


@pytest.fixture()
def database(tmp_path: Path) -> Path:
    path = tmp_path / "gx.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute(
            "create view requests as select i as row_number, "
            "case when i < 7 then -1 else i end as request_tokens, 2 as response_tokens, "
            "case when i < 7 then 0 else i + 2 end as total_tokens from range(1000) t(i)"
        )
        con.execute(
            "create view requests_frame as select *, request_tokens + response_tokens as parts, "
            "total_tokens - (request_tokens + response_tokens) as total_minus_parts from requests"
        )
    return path


def _counts(source: Any) -> dict[str, tuple[int | None, int | None]]:
    import great_expectations as gx

    expectations = {
        "request_tokens >= 0": gx.expectations.ExpectColumnValuesToBeBetween(
            column="request_tokens", min_value=0
        ),
        "total_minus_parts = 0": gx.expectations.ExpectColumnValuesToBeBetween(
            column="total_minus_parts", min_value=0, max_value=0
        ),
        "total_tokens = parts": gx.expectations.ExpectColumnPairValuesToBeEqual(
            column_A="total_tokens", column_B="parts"
        ),
    }
    suite = gx.ExpectationSuite(name=f"suite_{source.name}")
    for name, expectation in expectations.items():
        expectation.meta = {"name": name}
        suite.add_expectation(expectation)
    asset = source.add_table_asset("requests_frame", table_name="requests_frame")
    result = asset.add_batch_definition_whole_table("all").get_batch().validate(suite)
    return {
        r.expectation_config.meta["name"]: (r.result.get("element_count"), r.result.get("unexpected_count"))
        for r in result.results
    }


def test_duckdb_datasource_resolves_expectations(database: Path) -> None:
    ctx = context()
    source = ctx.data_sources.add_duckdb("fixed", connection_string=f"duckdb:///{database}")  # type: ignore[attr-defined]
    try:
        assert _counts(source) == {
            "request_tokens >= 0": (ROWS, BAD),
            "total_minus_parts = 0": (ROWS, BAD),
            "total_tokens = parts": (ROWS, BAD),
        }
    finally:
        ctx.data_sources.delete("fixed")


def test_stock_gx_sql_datasource_sees_no_rows_on_duckdb(database: Path) -> None:
    """The defect the project's engine fixes (when GX fixes it upstream, this test fails and says so)."""
    ctx = context()
    source = ctx.data_sources.add_sql("stock", connection_string=f"duckdb:///{database}")
    try:
        counts = _counts(source)
    finally:
        ctx.data_sources.delete("stock")
    assert all(unexpected in (None, 0) for _, unexpected in counts.values()), counts
