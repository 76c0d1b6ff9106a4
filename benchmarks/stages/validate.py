"""``validate``: the Great Expectations suites of some families over the raw lake, as the asset checks run
them (``validate_family``, then the ``quarantine.<family>`` views). Unavailable until pipelines/validate/
exists and imports."""

from __future__ import annotations

from typing import Any

from benchmarks.stage_protocol import StageContext, StageOutput, StageUnavailable
from benchmarks.stages.lake import landed_bytes


def run(ctx: StageContext) -> StageOutput:
    try:
        import great_expectations  # noqa: F401  (start-up: imported once per process, like Dagster's)

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
        }
    with writer(settings) as con:
        refresh_views(con, settings, families)
    ctx.done()
    return StageOutput(
        rows=sum(d["rows"] for d in per_family.values()),
        bytes=landed_bytes(settings, families),
        detail={"families": per_family},
    )
