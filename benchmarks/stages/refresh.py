"""``refresh``: what a refresh run does after one upstream file changed — land the workload again (unchanged
files are skipped on size and mtime; the changed one is copied and verified), then the raw load, where the
changed file rewrites only the partitions whose content hash changed."""

from __future__ import annotations

from typing import Any

from benchmarks.stage_protocol import StageContext, StageOutput
from benchmarks.stages.lake import landed_bytes


def run(ctx: StageContext) -> StageOutput:
    from pipelines.families.registry import fixed_files
    from pipelines.lake.family_load import load_family
    from pipelines.sources.landing import land_files

    settings = ctx.settings
    families: list[str] = list(ctx.params["families"])
    wanted = set(ctx.params["files"])
    files = [f for f in fixed_files() if f.mirror_path in wanted]
    ctx.ready()
    landed = land_files(settings, files)
    if landed.errors:
        raise RuntimeError("\n".join(str(e) for e in landed.errors))
    loads = [load_family(settings, fam) for fam in families]
    ctx.done()
    errors = [str(e) for load in loads for e in load.errors]
    if errors:
        raise RuntimeError("\n".join(errors))
    results = [r for load in loads for r in load.results]
    changed = [r for r in results if not r.skipped]
    detail: dict[str, Any] = {
        "files_landed_again": sum(f.changed for f in landed.landed),
        "files_reloaded": [r.state.mirror_path for r in changed],
        "partitions_written": sorted(k for r in changed if r.swap for k in r.swap.written),
        "partitions_unchanged": sum(len(r.swap.unchanged) for r in changed if r.swap),
        "partitions_pending_dbt": {
            fam: sorted(load.pending) for fam, load in zip(families, loads, strict=True)
        },
    }
    return StageOutput(
        rows=sum(r.state.loaded for r in changed), bytes=landed_bytes(settings, families), detail=detail
    )
