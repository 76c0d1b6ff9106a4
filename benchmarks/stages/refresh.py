"""``refresh``: what a refresh run does after one upstream file changed — land the workload again (unchanged
files are skipped on size and mtime; the changed one is copied and verified), then the raw load, where the
changed file, grown by one appended day, has only its new lines parsed (``lines_parsed``), and only the
partitions they fall in are written."""

from __future__ import annotations

from typing import Any

from benchmarks.stage_protocol import StageContext, StageOutput
from benchmarks.stages.lake import landed_bytes


def _land_and_load(ctx: StageContext) -> tuple[Any, list[Any]]:
    """What a refresh run's landing and raw assets do for the workload (``ready`` is stamped before)."""
    from pipelines.families.registry import fixed_files
    from pipelines.sample.source import trace_source
    from pipelines.sources.landing import land_files
    from pipelines.warehouse.raw_load import load_family

    wanted = set(ctx.params["files"])
    files = [f for f in fixed_files() if f.mirror_path in wanted]
    ctx.ready()
    landed = land_files(ctx.settings, files, source=trace_source(ctx.settings))
    if landed.errors:
        raise RuntimeError("\n".join(str(e) for e in landed.errors))
    return landed, [load_family(ctx.settings, fam) for fam in ctx.params["families"]]


def run(ctx: StageContext) -> StageOutput:
    settings = ctx.settings
    families: list[str] = list(ctx.params["families"])
    landed, loads = _land_and_load(ctx)
    ctx.done()
    errors = [str(e) for load in loads for e in load.errors]
    if errors:
        raise RuntimeError("\n".join(errors))
    results = [r for load in loads for r in load.results]
    changed = [r for r in results if not r.skipped]
    detail: dict[str, Any] = {
        "files_landed_again": sum(f.changed for f in landed.landed),
        "files_reloaded": {r.state.mirror_path: r.mode for r in changed},  # full | append (only new lines)
        "lines_parsed": sum(r.lines_parsed for r in changed),
        "partitions_written": sorted(k for r in changed if r.swap for k in r.swap.written),
        "partitions_unchanged": sum(len(r.swap.unchanged) for r in changed if r.swap),
        "partitions_pending_dbt": {
            fam: sorted(load.pending) for fam, load in zip(families, loads, strict=True)
        },
    }
    return StageOutput(
        rows=sum(r.lines_parsed for r in changed), bytes=landed_bytes(settings, families), detail=detail
    )


def run_unchanged(ctx: StageContext) -> StageOutput:
    """A refresh after which nothing changed upstream, as the daily refresh does it: landing (every file
    skipped on size and mtime), the raw load (every file skipped on sha256), the checks (every stored result
    reused, views unchanged) and, when dbt is part of the benchmark, the dbt step's decision (no pending
    partition: dbt is not invoked)."""
    from pipelines.validate.validation import validate_family
    from pipelines.warehouse.db import writer
    from pipelines.warehouse.dbt_build import pending_partitions
    from pipelines.warehouse.views import refresh_views

    settings = ctx.settings
    families: list[str] = list(ctx.params["families"])
    landed, loads = _land_and_load(ctx)
    validated = [validate_family(settings, fam, log=lambda _msg: None) for fam in families]
    with writer(settings) as con:
        refresh_views(con, settings, families)
    # the dbt asset's decision (dbt consumed the refresh's partitions when it ran; without dbt they wait)
    dbt_invoked = any(pending_partitions(settings).values()) if ctx.params.get("dbt") else None
    ctx.done()
    detail = {
        "files_landed_again": sum(f.changed for f in landed.landed),
        "files_reloaded": sum(not r.skipped for load in loads for r in load.results),
        "units_validated": sum(v.units_validated for v in validated),
        "frames_validated": sum(len(v.frames_validated) for v in validated),
        "dbt_invoked": dbt_invoked,
    }
    if any(detail[k] for k in ("files_landed_again", "files_reloaded", "dbt_invoked")):
        raise RuntimeError(f"not a no-change refresh: {detail}")
    return StageOutput(rows=0, bytes=landed_bytes(settings, families), detail=detail)
