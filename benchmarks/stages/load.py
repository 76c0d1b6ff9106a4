"""``load``: what the raw assets do, for some families (``load_family``: every landed file into the
Parquet lake, the ``raw.<family>`` views, the partitions pending for dbt); ``load_file``: one file alone
(the memory benchmark)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.stage_protocol import StageContext, StageOutput
from benchmarks.stages.lake import folder_bytes, landed_bytes


def run(ctx: StageContext) -> StageOutput:
    from pipelines.warehouse.raw_load import load_family

    settings = ctx.settings
    families: list[str] = list(ctx.params["families"])
    ctx.ready()
    per_family: dict[str, dict[str, Any]] = {}
    for fam in families:
        loaded = load_family(settings, fam)
        if loaded.errors:
            raise RuntimeError("\n".join(str(e) for e in loaded.errors))
        results = loaded.results
        per_family[fam] = {
            "files": len(results),
            "seconds": round(sum(r.seconds for r in results), 3),
            "files_unchanged": sum(r.skipped for r in results),
            "rows": sum(r.state.loaded if r.state.values is None else r.state.values for r in results),
            "rejected": sum(r.state.rejected for r in results),
            "partitions_written": sum(len(r.swap.written) for r in results if r.swap),
            "partitions_unchanged": sum(len(r.swap.unchanged) for r in results if r.swap),
            "parsers": sorted({r.parser for r in results if r.parser}),
            "lake_bytes": folder_bytes(settings.raw_dir / fam) + folder_bytes(settings.rejects_dir / fam),
        }
    ctx.done()
    return StageOutput(
        rows=sum(d["rows"] for d in per_family.values()),
        bytes=landed_bytes(settings, families),
        detail={"families": per_family, "duckdb_bytes": folder_bytes(settings.warehouse_dir, "**/*.duckdb")},
    )


def run_one_file(ctx: StageContext) -> StageOutput:
    """Load one CSV (``path``) as the catalog file ``repo_path`` of ``family`` (no landing, no views)."""
    from pipelines.families.upstream import UpstreamFile
    from pipelines.lake.loader import SourceFile, load_file

    p = ctx.params
    settings = ctx.settings
    path = Path(p["path"])
    upstream = UpstreamFile(p["family"], "huggingface", p["repo_path"], p.get("cluster"), p.get("metric"))
    src = SourceFile(upstream, path, sha256=f"benchmark:{path.name}", origin="synthetic")
    ctx.ready()
    result = load_file(settings, src, force=True)
    ctx.done()
    st = result.state
    return StageOutput(
        rows=st.loaded if st.values is None else st.values,
        bytes=path.stat().st_size,
        detail={"lines": st.lines, "rejected": st.rejected, "partitions": len(st.partitions)},
    )
