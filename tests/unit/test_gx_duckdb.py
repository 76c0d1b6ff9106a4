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


def _registered_counts(
    database: Path, name: str, rows_of: str | None
) -> dict[str, tuple[int | None, int | None]]:
    from pipelines.validate.gx_duckdb import count_rows_of, forget_row_sources

    ctx = context()
    source = ctx.data_sources.add_duckdb(name, connection_string=f"duckdb:///{database}")  # type: ignore[attr-defined]
    if rows_of is not None:
        count_rows_of(str(database), "requests_frame", rows_of)
    try:
        return _counts(source)
    finally:
        forget_row_sources(str(database))
        ctx.data_sources.delete(name)


def test_a_registered_frame_is_counted_from_its_source(database: Path) -> None:
    """The frame's row count comes from the relation it was registered with (here a different one, so the
    test sees which was used); the rules' unexpected counts are still GX's own over the frame."""
    counts = _registered_counts(database, "registered", "range(1234)")
    assert {element for element, _ in counts.values()} == {1234}
    assert {unexpected for _, unexpected in counts.values()} == {BAD}


def test_row_count_from_the_source_equals_gx_count(database: Path) -> None:
    """Registered with its true source (the view the frame adds columns to), every count is as GX's own."""
    assert _registered_counts(database, "true_source", "requests") == _registered_counts(
        database, "plain", None
    )


def test_the_registration_is_forgotten(database: Path) -> None:
    from pipelines.validate.gx_duckdb import count_rows_of, forget_row_sources

    count_rows_of(str(database), "requests_frame", "range(5)")
    forget_row_sources(str(database))
    counts = _registered_counts(database, "forgotten", None)
    assert {element for element, _ in counts.values()} == {ROWS}


@pytest.mark.parametrize("registered", [True, False])
def test_an_empty_registered_frame_counts_every_row_as_passing(database: Path, registered: bool) -> None:
    """A sparse or screened frame with no rows (none breaks a rule) registered with the batch's rows: every
    rule evaluated that many rows and found none unexpected. Unregistered, GX reads the NULL sums of no rows
    as an empty batch."""
    with duckdb.connect(str(database)) as con:
        con.execute("create or replace table empty as select * from requests_frame where false")
        con.execute("create or replace view requests_frame as select * from empty")
    counts = _registered_counts(database, f"empty_{registered}", "range(1234)" if registered else None)
    assert set(counts.values()) == ({(1234, 0)} if registered else {(0, None), (0, 0)})
