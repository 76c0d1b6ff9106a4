"""``validate``: the Great Expectations suites of some families over the raw lake, as a run does it: the asset
checks (``validate_family``: only what changed since the stored results, then the ``quarantine.<family>``
views), then ``docs/gx`` rendering the Data Docs once. Unavailable until pipelines/validate/ exists and
imports."""

from __future__ import annotations

from typing import Any

from benchmarks.stage_protocol import StageContext, StageOutput, StageUnavailable
from benchmarks.stages.lake import landed_bytes


def run(ctx: StageContext) -> StageOutput:
    try:
        import great_expectations  # noqa: F401  (start-up: imported once per process, like Dagster's)

        from pipelines.validate.data_docs import render
        from pipelines.validate.validation import validate_family
    except ImportError as exc:
        raise StageUnavailable(f"validation is not importable: {exc}") from exc
    from pipelines.warehouse.db import writer
    from pipelines.warehouse.views import refresh_views

    settings = ctx.settings
    families: list[str] = list(ctx.params["families"])
    ctx.ready()
    per_family: dict[str, dict[str, Any]] = {}
    for fam in families:
        result = validate_family(settings, fam, log=lambda _msg: None)
        per_family[fam] = {
            "rows": result.loaded,
            "quarantined": result.quarantined,
            "rules": len(result.outcomes),
            "rules_failed": sorted(name for name, o in result.outcomes.items() if not o.passed),
            "units_validated": result.units_validated,
            "units_reused": result.units_reused,
        }
    with writer(settings) as con:
        refresh_views(con, settings, families)
    pages = render(settings)
    ctx.done()
    return StageOutput(
        rows=sum(d["rows"] for d in per_family.values()),
        bytes=landed_bytes(settings, families),
        detail={"families": per_family, "data_docs_pages_rendered": pages},
    )
