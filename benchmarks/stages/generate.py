"""``generate``: the synthetic mirror at ``--scale`` (every upstream file, utilization sized by
``util_nodes``/``util_days``), written by the project's generator; with ``utilization_only``, just those
utilization files (the full-shape stage's real-shaped Kalos GPU_UTIL)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.stage_protocol import StageContext, StageOutput


def run(ctx: StageContext) -> StageOutput:
    from pipelines.sample import generate_sample

    p = ctx.params
    ctx.ready()
    manifest = generate_sample(
        Path(p["out"]),
        scale=p["scale"],
        util_nodes=p["util_nodes"],
        util_days=p["util_days"],
        gpu_util_days=p.get("gpu_util_days"),
        seed=p["seed"],
        utilization_only=p.get("utilization_only"),
    )
    ctx.done()
    # Rows are counted by the harness once (the mirror is deterministic), not here.
    return StageOutput(
        bytes=sum(e.bytes for e in manifest.files.values()), detail={"files": len(manifest.files)}
    )
