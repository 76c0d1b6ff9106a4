"""Schedules and sensors: a daily refresh, and a sensor that reacts to changed upstream files.

Both start STOPPED: turn them on in the UI (Automation) — a running sensor in every `make dev` would launch
runs nobody asked for. A refresh is cheap when nothing changed: unchanged files are not fetched or loaded,
and dbt replaces only the partitions whose content hash changed (see pipelines/lake/pending.py).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict

import dagster as dg

from pipelines.defs.keys import EXPORT_GROUP, landing_key, raw_key
from pipelines.settings import Settings

REFRESH_JOB = "refresh"
TRIGGER_TAG = "trace-warehouse/trigger"
# Runs the automation launched (not a user): their dbt step is skipped when no raw partition changed.
AUTOMATIC_TRIGGERS = frozenset({"schedule", "upstream-change"})
# Every asset and check except the replay exports, which are built on demand (pipelines/defs/exports.py).
EVERYTHING = (
    dg.AssetSelection.all() - dg.AssetSelection.groups(EXPORT_GROUP)
) | dg.AssetSelection.all_asset_checks()


def refresh_job() -> dg.UnresolvedAssetJobDefinition:
    return dg.define_asset_job(
        REFRESH_JOB,
        selection=EVERYTHING,
        description="Fetch what changed upstream, load changed files, validate, rebuild changed partitions.",
        tags={TRIGGER_TAG: "schedule"},
    )


def daily_refresh(job: dg.UnresolvedAssetJobDefinition) -> dg.ScheduleDefinition:
    return dg.ScheduleDefinition(
        name="daily_refresh",
        job=job,
        cron_schedule="0 3 * * *",
        execution_timezone="UTC",
        default_status=dg.DefaultScheduleStatus.STOPPED,
        description="Every day at 03:00 UTC: the whole graph; unchanged files and partitions cost nothing.",
    )


def run_requests_for_changes(changes, asset_graph) -> list[dg.RunRequest]:
    """One run per family with changed files: its landing and raw assets and everything downstream."""
    by_family: dict[str, list] = defaultdict(list)
    for change in changes:
        by_family[change.family].append(change)
    requests = []
    for family, items in sorted(by_family.items()):
        versions = "|".join(sorted(f"{c.mirror_path}={c.version}" for c in items))
        selection = dg.AssetSelection.assets(landing_key(family)) | dg.AssetSelection.assets(
            raw_key(family)
        ).downstream(include_self=True)
        keys = sorted(selection.resolve(asset_graph), key=lambda k: k.to_user_string())
        checks = (dg.AssetSelection.assets(*keys).checks()).resolve_checks(asset_graph)
        requests.append(
            dg.RunRequest(
                run_key=f"{family}:{hashlib.sha1(versions.encode()).hexdigest()[:16]}",
                asset_selection=keys,
                asset_check_keys=sorted(checks, key=str),
                tags={
                    TRIGGER_TAG: "upstream-change",
                    "trace-warehouse/family": family,
                    "trace-warehouse/changed-files": ", ".join(
                        sorted(c.mirror_path.rsplit("/", 1)[-1] for c in items)
                    )[:200],
                },
            )
        )
    return requests


@dg.sensor(
    name="upstream_change_sensor",
    target=EVERYTHING,
    minimum_interval_seconds=300,
    default_status=dg.DefaultSensorStatus.STOPPED,
    description="Every 5 minutes: HEAD (remote) or stat (mirror) each upstream file; a changed or new file "
    "requests its family's landing, raw and downstream assets.",
)
def upstream_change_sensor(
    context: dg.SensorEvaluationContext, warehouse: dg.ResourceParam[Settings]
) -> dg.SensorResult:
    from pipelines.sources.changes import detect_changes

    changes = detect_changes(warehouse)
    if not changes:
        return dg.SensorResult(skip_reason="no upstream file changed since it was landed")
    for c in changes:
        context.log.info(f"{c.mirror_path}: {c.reason}")
    return dg.SensorResult(run_requests=run_requests_for_changes(changes, context.repository_def.asset_graph))
