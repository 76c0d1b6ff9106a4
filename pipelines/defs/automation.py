"""Dagster's declarative automation of the refresh: what runs when, as conditions on the assets.

- ``upstream/<family>``: one external asset per family, the files upstream. ``upstream_change_sensor`` reports
  a materialization of it when one of its files changed (``HEAD`` or ``stat``, nothing downloaded); for a
  utilization family, of the changed file's partition (``kalos/GPU_UTIL``, pipelines/defs/file_partitions.py),
  so only that file is fetched and loaded.
- ``landing/<family>``: ``eager()`` — requested when its upstream asset is reported changed — or the daily tick
  at 03:00 UTC (a fetch of everything; unchanged files are not downloaded or loaded again).
- everything downstream (raw, dbt models and their tests, Data Docs, reports): ``eager()``, so one run takes
  a change from landing to the marts, and only the lineage of the families that changed is in it.
- the refresh assets' freshness: raw data older than a day warns, older than two days fails.
``refresh_automation`` (an automation condition sensor) evaluates the conditions and launches the runs. Both
sensors start STOPPED: turn them on in the UI (Automation) — running sensors in every ``make dev`` would
launch runs nobody asked for. Runs they launch carry ``trace-warehouse/trigger=automation``: their dbt step
is skipped when no raw partition changed (pipelines/defs/rebuild.py, shared with `trace-warehouse run`).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Sequence
from datetime import timedelta

import dagster as dg

from pipelines.defs.file_partitions import partitions_def
from pipelines.defs.keys import EXPORT_GROUP, LANDING_GROUP, RAW_GROUP, UPSTREAM_GROUP, upstream_key
from pipelines.defs.rebuild import TRIGGER_TAG
from pipelines.families.registry import all_families, upstream_file
from pipelines.settings import Settings
from pipelines.sources.trace_source import TraceSource

AUTOMATION_SENSOR = "refresh_automation"
UPSTREAM_SENSOR = "upstream_change_sensor"
DAILY_CRON = "0 3 * * *"
# Every asset and check a refresh (`trace-warehouse run`) runs: not the replay exports (on demand,
# pipelines/defs/exports.py) nor the external upstream assets.
EVERYTHING = (
    dg.AssetSelection.all() - dg.AssetSelection.groups(EXPORT_GROUP, UPSTREAM_GROUP)
) | dg.AssetSelection.all_asset_checks()
# The groups the refresh automates; others (e.g. exports, written on demand) carry no condition.
AUTOMATED_GROUPS = frozenset(
    {LANDING_GROUP, RAW_GROUP, "staging", "intermediate", "marts", "analysis", "reports"}
)
# dbt's `quarantine` and `cells` sources: written by the raw assets' checks and by the raw assets (a model
# reading them depends on the raw asset too), never materialized as assets of their own, so they would count
# as missing dependencies forever.
WRITTEN_WITH_RAW = dg.AssetSelection.key_prefixes(["quarantine"], ["cells"], include_sources=True)
RAW_FRESHNESS = dg.FreshnessPolicy.time_window(fail_window=timedelta(days=2), warn_window=timedelta(hours=26))


def eager() -> dg.AutomationCondition:
    return dg.AutomationCondition.eager().ignore(WRITTEN_WITH_RAW)


def landing_condition() -> dg.AutomationCondition:
    daily = (
        dg.AutomationCondition.cron_tick_passed(DAILY_CRON, "UTC").since_last_handled()
        & ~dg.AutomationCondition.in_progress()
    ).with_label("daily at 03:00 UTC")
    return (eager() | daily).with_label("upstream changed, or daily at 03:00 UTC")


def with_automation(assets: Sequence[dg.AssetsDefinition]) -> Sequence[dg.AssetsDefinition]:
    """The assets with their automation conditions (and the raw assets' freshness), by group."""

    def automate(spec: dg.AssetSpec) -> dg.AssetSpec:
        if spec.group_name not in AUTOMATED_GROUPS:
            return spec
        condition = landing_condition() if spec.group_name == LANDING_GROUP else eager()
        if spec.group_name == RAW_GROUP:
            return spec.replace_attributes(automation_condition=condition, freshness_policy=RAW_FRESHNESS)
        return spec.replace_attributes(automation_condition=condition)

    return dg.map_asset_specs(automate, assets)


def upstream_assets() -> list[dg.AssetSpec]:
    """One external asset per family: its upstream files, which this project does not produce."""
    return [
        dg.AssetSpec(
            key=upstream_key(fam.key),
            group_name=UPSTREAM_GROUP,
            description=f"Upstream files of `{fam.catalog_name}` (GitHub, HuggingFace or the mirror); "
            f"`{UPSTREAM_SENSOR}` reports a materialization when one of them changed.",
            tags={"source": fam.source},
            kinds={"csv"},
            partitions_def=partitions_def(fam),
        )
        for fam in all_families()
    ]


def refresh_automation() -> dg.AutomationConditionSensorDefinition:
    return dg.AutomationConditionSensorDefinition(
        AUTOMATION_SENSOR,
        target=dg.AssetSelection.all(),
        run_tags={TRIGGER_TAG: "automation"},
        default_status=dg.DefaultSensorStatus.STOPPED,
        minimum_interval_seconds=30,
        description="Evaluates the assets' automation conditions every 30 s and launches what they request: "
        "a changed upstream family from landing to the marts, and the daily refresh at 03:00 UTC.",
    )


def upstream_events(
    changes, reported: dict[str, str]
) -> tuple[list[dg.AssetMaterialization], dict[str, str]]:
    """One materialization of ``upstream/<family>`` per family (per file partition of a utilization family,
    ``kalos/GPU_UTIL``) whose changed files were not reported yet.

    ``reported`` (the sensor's cursor) maps each family (``<family>:<partition>``) with unlanded changes to
    the versions it was reported with, so a change that is not landed yet (the automation is off, or the file
    is broken) is reported once, not every tick; a family whose change was landed leaves the cursor.
    """
    by_unit: dict[tuple[str, str | None], list] = defaultdict(list)
    for change in changes:
        upstream = upstream_file(change.mirror_path)
        by_unit[(change.family, upstream.partition if upstream else None)].append(change)
    events, cursor = [], {}
    for (family, partition), items in sorted(by_unit.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        versions = "|".join(sorted(f"{c.mirror_path}={c.version}" for c in items))
        unit = f"{family}:{partition}" if partition else family
        cursor[unit] = version = hashlib.sha1(versions.encode()).hexdigest()[:16]
        if reported.get(unit) == version:
            continue
        events.append(
            dg.AssetMaterialization(
                asset_key=upstream_key(family),
                partition=partition,
                description="changed upstream: " + ", ".join(sorted(c.mirror_path for c in items)),
                metadata={
                    "changed_files": dg.MetadataValue.json(
                        [{"path": c.mirror_path, "why": c.reason, "version": c.version} for c in items]
                    ),
                    "version": version,
                },
            )
        )
    return events, cursor


@dg.sensor(
    name=UPSTREAM_SENSOR,
    minimum_interval_seconds=300,
    default_status=dg.DefaultSensorStatus.STOPPED,
    description="Every 5 minutes: HEAD (remote) or stat (mirror) each upstream file; a changed or new file is "
    f"reported as a materialization of its family's upstream asset, which `{AUTOMATION_SENSOR}` turns into a run.",
)
def upstream_change_sensor(
    context: dg.SensorEvaluationContext,
    settings: dg.ResourceParam[Settings],
    trace_source: dg.ResourceParam[TraceSource],
) -> dg.SensorResult:
    from pipelines.sources.changes import detect_changes

    changes = detect_changes(settings, source=trace_source)
    for c in changes:
        context.log.info(f"{c.mirror_path}: {c.reason}")
    events, cursor = upstream_events(changes, json.loads(context.cursor or "{}"))
    if not events:
        reason = (
            "reported before, not landed yet" if changes else "no upstream file changed since it was landed"
        )
        return dg.SensorResult(skip_reason=reason, cursor=json.dumps(cursor, sort_keys=True))
    return dg.SensorResult(asset_events=events, cursor=json.dumps(cursor, sort_keys=True))
