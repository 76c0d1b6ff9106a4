"""``fetch``: land files over the real HTTP path (``TRACE_SOURCE=remote`` against a mirror served on
127.0.0.1 by the harness): requests, resumable download, verification, atomic rename, landing manifest."""

from __future__ import annotations

from benchmarks.stage_protocol import StageContext, StageOutput


def run(ctx: StageContext) -> StageOutput:
    from pipelines.families.registry import fixed_files
    from pipelines.sample.source import trace_source
    from pipelines.sources.landing import land_files

    settings = ctx.settings
    wanted = set(ctx.params["files"])
    files = [f for f in fixed_files() if f.mirror_path in wanted]
    ctx.ready()
    result = land_files(settings, files, source=trace_source(settings))
    ctx.done()
    if result.errors:
        raise RuntimeError("\n".join(str(e) for e in result.errors))
    return StageOutput(
        bytes=sum(f.bytes for f in result.landed),
        detail={"files": len(result.landed), "changed": sum(f.changed for f in result.landed)},
    )
