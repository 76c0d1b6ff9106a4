"""``cookbook``: the five cookbook questions (``benchmarks/cookbook_queries.py``) on a read-only connection
to the built ``trace.duckdb`` (as the project's reader opens it), each beside its hand-written query over the
raw lake's Parquet files, alternately, ``repeats`` times in this one process; medians per query."""

from __future__ import annotations

import statistics
import time

from benchmarks.stage_protocol import StageContext, StageOutput


def _timed(con, sql: str) -> tuple[float, int]:  # con: duckdb.DuckDBPyConnection
    start = time.perf_counter()
    rows = len(con.execute(sql).fetchall())
    return time.perf_counter() - start, rows


def run(ctx: StageContext) -> StageOutput:
    import duckdb

    from benchmarks.cookbook_queries import QUERIES
    from pipelines.warehouse.db import reader

    settings = ctx.settings
    repeats = int(ctx.params.get("repeats", 5))
    lake_root = str(settings.lake_dir / "raw")
    warehouse = reader(settings)
    lake = duckdb.connect()
    lake.execute("set TimeZone = 'UTC'")
    ctx.ready()
    detail = {}
    for q in QUERIES:
        sides: dict[str, list[float]] = {"warehouse": [], "lake": []}
        rows: dict[str, int] = {}
        for _ in range(repeats):
            for side, con, sql in (("warehouse", warehouse, q.warehouse), ("lake", lake, q.lake)):
                try:
                    seconds, rows[side] = _timed(con, sql.replace("{lake}", lake_root))
                except duckdb.Error as exc:
                    raise RuntimeError(f"cookbook query {q.key!r} ({side}) failed: {exc}") from exc
                sides[side].append(seconds)
        w, la = statistics.median(sides["warehouse"]), statistics.median(sides["lake"])
        detail[q.key] = {"question": q.question, "warehouse_s": w, "lake_s": la,
                         "warehouse_over_lake": w / la if la else None, "rows": rows, "repeats": repeats}  # fmt: skip
    ctx.done()
    warehouse.close()
    lake.close()
    return StageOutput(detail={"queries": detail})
