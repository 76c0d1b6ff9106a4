"""The fast path reads plain ``Time`` text with pyarrow and gets DuckDB's values, or leaves it to DuckDB."""

from __future__ import annotations

import pyarrow as pa
import pytest

from pipelines.lake.wide_fast import NotClean, _Times, plain_times

PLAIN = [
    "2023-07-19 00:00:00+08:00",
    "2023-07-19 07:59:45+08:00",  # the UTC date before
    "2023-07-19 08:00:00+08:00",
    "2024-02-29 12:00:15+08:00",  # a leap day
    "2023-12-31 23:59:59-05:30",  # into the next UTC year
    "1999-12-31 20:00:00-04:00",
    "2023-07-19 00:00:00+00:00",
    "2023-07-19 00:00:00-00:00",
    "2023-07-19 00:00:00+15:59",
    "2023-07-19 00:00:00+24:00",
]
# Plain-shaped text that pyarrow reads otherwise than DuckDB (rolled over, or refused where DuckDB reads it).
NOT_PYARROWS = [
    "2023-02-29 00:00:00+08:00",
    "2023-04-31 00:00:00+08:00",
    "2023-07-19 23:59:60+08:00",
    "2023-07-19 24:00:00+08:00",
    "2023-07-19 00:00:00+08:61",
]
OTHER_SHAPES = [
    "2023-07-19T00:00:00+08:00",
    "2023-07-19 00:00:00",
    "2023-07-19 00:00:00.5+08:00",
    " 2023-07-19 00:00:00+08:00",
]


def _sql(text: list[str]) -> tuple[pa.Array, pa.Array, pa.Array] | str:
    times = _Times("date")
    try:
        return times.convert_sql(pa.array(text))
    except NotClean as exc:
        return str(exc)
    finally:
        times.close()


def test_plain_times_equal_duckdbs() -> None:
    got = plain_times(pa.array(PLAIN))
    assert got is not None
    want = _sql(PLAIN)
    assert not isinstance(want, str)
    for mine, duckdbs in zip(got, want, strict=True):
        assert mine.type == duckdbs.type
        assert mine.to_pylist() == duckdbs.to_pylist()


@pytest.mark.parametrize("odd", NOT_PYARROWS + OTHER_SHAPES)
def test_a_block_with_one_other_time_is_left_to_duckdb(odd: str) -> None:
    """One such string makes the whole block DuckDB's: the values (or the NotClean) are the exact path's."""
    text = [*PLAIN[:3], odd, *PLAIN[3:]]
    assert plain_times(pa.array(text)) is None
    times = _Times("date")
    try:
        got: tuple[pa.Array, pa.Array, pa.Array] | str = times.convert(pa.array(text))
    except NotClean as exc:
        got = str(exc)
    finally:
        times.close()
    want = _sql(text)
    if isinstance(want, str):
        assert got == want
    else:
        assert [a.to_pylist() for a in got] == [a.to_pylist() for a in want]


def test_other_partitionings_ask_duckdb() -> None:
    """plain_times gives a UTC date key; a family partitioned otherwise never takes it."""
    times = _Times("month")
    try:
        assert not times._plain
    finally:
        times.close()
