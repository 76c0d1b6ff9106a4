"""``report``: the report assets (figures and report page from the analysis marts), materialized with
Dagster in this process. Unavailable until the definitions hold assets in a report/figure group."""

from __future__ import annotations

from benchmarks.stage_protocol import StageContext, StageOutput, StageUnavailable
from benchmarks.stages.dagster_runs import asset_groups, report_selection, run_selection
from benchmarks.stages.lake import lake_rows, landed_bytes


def run(ctx: StageContext) -> StageOutput:
    import dagster  # noqa: F401

    selection = report_selection(asset_groups(ctx.settings))
    if selection is None:
        raise StageUnavailable("the Dagster definitions have no report assets yet")
    families: list[str] = list(ctx.params["families"])
    ctx.ready()
    result = run_selection(ctx.settings, selection)
    ctx.done()
    if result.exit_code != 0:
        raise RuntimeError("report assets failed: " + "; ".join(result.failed_lines))
    settings = ctx.settings
    return StageOutput(
        rows=lake_rows(settings, families),
        bytes=landed_bytes(settings, families),
        detail={"selection": selection},
    )
