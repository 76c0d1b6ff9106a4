"""``pipeline``: the whole Dagster graph in this process for the workload (``pipeline_total``): the workload
families' raw assets, their validation checks and every dbt model, landing excluded (the files are landed
by set-up; download is measured by ``fetch``)."""

from __future__ import annotations

from benchmarks.stage_protocol import StageContext, StageOutput
from benchmarks.stages.dagster_runs import asset_groups, pipeline_selection, run_selection
from benchmarks.stages.lake import lake_rows, landed_bytes


def run(ctx: StageContext) -> StageOutput:
    import dagster  # noqa: F401  (start-up: Dagster and the definitions load before "ready")

    families: list[str] = list(ctx.params["families"])
    groups = asset_groups(ctx.settings)
    selection = ctx.params.get("select") or pipeline_selection(groups, families)
    ctx.ready()
    result = run_selection(ctx.settings, selection)
    ctx.done()
    settings = ctx.settings
    return StageOutput(
        rows=lake_rows(settings, families),
        bytes=landed_bytes(settings, families),
        detail={
            "selection": selection,
            "groups": sorted(groups),
            "exit_code": result.exit_code,
            "failed": result.failed_lines,
        },
    )
