"""BurstGPT's requests partition by partition, as the incremental tests change them: the raw Parquet file
of a partition (:func:`raw_file`), rewriting it as a reload would (:func:`rewrite`), and ``fct_request``'s
rows by partition (:func:`facts`)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from pipelines.settings import Settings
from tests.e2e.cli import query

FAMILY = "burstgpt__requests"


def raw_file(settings: Settings, key: str) -> Path:
    (path,) = (settings.raw_dir / FAMILY / f"_partition={key}").glob("*.parquet")
    return path


def rewrite(path: Path, select: str) -> None:
    """Replace a raw Parquet file by ``select`` over its current rows (``raw``), as a reload would."""
    con = duckdb.connect()
    try:
        con.execute(f"create table raw as select * from read_parquet('{path}')")
        con.execute(f"copy ({select}) to '{path}' (format parquet)")
    finally:
        con.close()


def facts(settings: Settings) -> dict[str, list[tuple]]:
    """fct_request's rows by partition, every column, in a fixed order."""
    out: dict[str, list[tuple]] = {}
    sql = "select * from marts.fct_request order by _partition, _source_file, _row_number"
    for row in query(settings.warehouse_dir, sql):
        out.setdefault(row[-1], []).append(row)
    return out
