"""The ceiling: DuckDB's bare ``read_csv`` of the same files into tables, nothing else — no line accounting,
no explicit types, no rejects, no Parquet, no provenance columns."""

from __future__ import annotations

from pathlib import Path

from benchmarks.stage_protocol import StageContext, StageOutput


def run(ctx: StageContext) -> StageOutput:
    import duckdb

    paths = [Path(p) for p in ctx.params["paths"]]
    con = duckdb.connect()
    ctx.ready()
    rows = 0
    for i, path in enumerate(paths):
        escaped = str(path).replace("'", "''")
        con.execute(f"create table t{i} as select * from read_csv('{escaped}')")
        rows += int(con.execute(f"select count(*) from t{i}").fetchall()[0][0])
    ctx.done()
    con.close()
    return StageOutput(rows=rows, bytes=sum(p.stat().st_size for p in paths), detail={"files": len(paths)})
