"""The run of ``trace-warehouse run`` as a Dagster job whose logger feeds the progress display.

:func:`run_job` builds the job — the selected assets, their checks and the resources — and
:func:`with_loggers` adds loggers: ``progress`` turns Dagster's records into the plain events of
``pipelines/progress.py``; ``console`` (Dagster's own) prints every record — to the log file, or with
``--verbose`` to the terminal.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import dagster as dg

from pipelines.defs.rebuild import parse_skip, skipped_downstream
from pipelines.progress import (
    AssetFinished,
    BytesLanded,
    CheckFinished,
    ProgressEvent,
    StageSkipped,
    StepStarted,
    Warned,
    layer_of,
)

# The run tags of a partition range (Dagster's own names; not exported by its public API).
RANGE_START_TAG, RANGE_END_TAG = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"
# The landing asset's progress lines (pipelines/sources/landing.py): "linked|downloaded PATH (N bytes)",
# "downloading PATH: N of M bytes (p %)".
_LANDED = re.compile(r"^(?:linked|downloaded) (?P<file>\S+) \((?P<bytes>\d+) bytes\)")
_DOWNLOADING = re.compile(r"^downloading (?P<file>\S+): (?P<bytes>\d+)")

Sink = Callable[[ProgressEvent], None]


@dataclass(frozen=True)
class RunPlan:
    """What the job will run: its steps' assets and checks, and how many assets (checks) each layer has."""

    step_assets: Mapping[str, tuple[str, ...]]
    step_checks: Mapping[str, tuple[str, ...]]
    totals: Mapping[str, int]


def plan_of(job: dg.JobDefinition) -> RunPlan:
    layer = job.asset_layer
    step_assets: dict[str, tuple[str, ...]] = {}
    step_checks: dict[str, tuple[str, ...]] = {}
    totals: dict[str, int] = {}
    for data in layer.data:
        step = data.node_handle.name
        step_assets[step] = tuple(sorted(k.to_user_string() for k in data.assets_def.keys))
        step_checks[step] = tuple(sorted(k.to_user_string() for k in data.assets_def.check_keys))
        for key in step_assets[step]:
            totals[layer_of(key)] = totals.get(layer_of(key), 0) + 1
    totals["checks"] = sum(len(keys) for keys in step_checks.values())
    return RunPlan(step_assets, step_checks, totals)


class _Translator(logging.Handler):
    """Dagster log records → progress events, in the order they come."""

    def __init__(self, plan: RunPlan, sink: Sink) -> None:
        super().__init__(level=logging.DEBUG)
        self.plan = plan
        self.sink = sink
        self.finished: set[str] = set()  # asset and check keys already reported
        self.partition_rows: dict[str, int] = {}  # rows of a partitioned asset's materializations so far
        self.dbt_skipped = False  # the dbt step said it was not needed

    def emit(self, record: logging.LogRecord) -> None:
        try:
            meta = getattr(record, "dagster_meta", None) or {}
            event = meta.get("dagster_event")
            message = str(meta.get("orig_message") or record.getMessage())
            for out in self._events(event, meta.get("step_key"), message, record.levelno):
                self.sink(out)
        except Exception:  # the display must never break the run
            self.handleError(record)

    def _events(self, event, step_key: str | None, message: str, level: int) -> Iterable[ProgressEvent]:
        kind = event.event_type_value if event is not None else None
        assets = self.plan.step_assets.get(step_key or "", ())
        if kind == "STEP_START":
            yield StepStarted(
                _step_label(step_key or "?", assets), layer_of(assets[0]) if assets else "checks"
            )
        elif kind == "ASSET_MATERIALIZATION":
            mat = event.event_specific_data.materialization
            key = mat.asset_key.to_user_string()
            rows = getattr(mat.metadata.get("rows"), "value", None)
            rows = rows if isinstance(rows, int) else None
            if mat.partition is not None:  # one event per file partition: the asset is done at STEP_SUCCESS
                self.partition_rows[key] = self.partition_rows.get(key, 0) + (rows or 0)
                return
            self.finished.add(key)
            yield AssetFinished(key, "ok", rows)
        elif kind == "STEP_SUCCESS":
            for key in (k for k in assets if k in self.partition_rows and k not in self.finished):
                self.finished.add(key)
                yield AssetFinished(key, "ok", self.partition_rows[key])
        elif kind == "ASSET_CHECK_EVALUATION":
            evaluation = event.event_specific_data
            check = evaluation.asset_check_key.to_user_string()
            self.finished.add(check)
            yield CheckFinished(check, bool(evaluation.passed))
        elif kind in ("STEP_FAILURE", "STEP_SKIPPED"):  # what the step did not get to is done, not passed
            status = "FAILED" if kind == "STEP_FAILURE" else "skipped"
            error = root_message(event.event_specific_data.error) if kind == "STEP_FAILURE" else ""
            if kind == "STEP_SKIPPED" and assets:
                yield StageSkipped(layer_of(assets[0]), skipped_downstream(self.dbt_skipped))
            for key in (k for k in assets if k not in self.finished):
                self.finished.add(key)
                yield AssetFinished(key, status, None, error)
            for check in (c for c in self.plan.step_checks.get(step_key or "", ()) if c not in self.finished):
                self.finished.add(check)
                yield CheckFinished(check, False)
        elif kind is None and (skip := parse_skip(message)):
            self.dbt_skipped = self.dbt_skipped or skip[0] == "dbt"
            yield StageSkipped(*skip)
        elif kind is None and (m := _LANDED.match(message) or _DOWNLOADING.match(message)):
            yield BytesLanded(m["file"], int(m["bytes"]))
        if level >= logging.WARNING and kind is None:
            yield Warned(message)


def _step_label(step_key: str, assets: tuple[str, ...]) -> str:
    if len(assets) == 1:
        return assets[0]
    if assets:
        return f"{step_key} ({len(assets)} assets)"
    return f"checks: {step_key}"


def root_message(err) -> str:  # err: SerializableErrorInfo | None
    """The user's error, not Dagster's wrapper: the innermost cause, without its exception class prefix."""
    while err is not None and err.cause is not None:
        err = err.cause
    text = (err.message if err else "failed").strip()
    head, sep, rest = text.partition(": ")
    return rest if sep and "." in head and " " not in head else text


def progress_logger(plan: RunPlan, sink: Sink) -> dg.LoggerDefinition:
    def _make(_context: dg.InitLoggerContext) -> logging.Logger:
        logger = logging.Logger("trace_warehouse.progress", level=logging.DEBUG)
        logger.addHandler(_Translator(plan, sink))
        return logger

    return dg.LoggerDefinition(_make, description="feeds the progress display of trace-warehouse run")


def run_job(
    assets: list[dg.AssetsDefinition],
    selection: dg.AssetSelection,
    resources: Mapping[str, object],
    narrow: Callable[[object, set[dg.AssetKey]], set[dg.AssetKey]] | None = None,
) -> dg.JobDefinition | None:
    """The selected assets and checks as a subset of the code location's implicit asset job, the job the UI
    runs. Unlike ``dg.define_asset_job`` (and so ``dg.materialize``) it may hold assets of different
    partitions definitions (the utilization families' file partitions); :func:`run_parts` splits it into runs.

    ``narrow(graph, keys)`` keeps only some of the selected assets (and their checks); None when none is left."""
    defs = dg.Definitions(assets=assets, resources=resources)
    graph = defs.resolve_asset_graph()
    keys, checks = selection.resolve(graph), selection.resolve_checks(graph)
    if narrow is not None:
        keys = narrow(graph, set(keys))
        checks = {check for check in checks if check.asset_key in keys}
    if not keys:
        return None
    return defs.resolve_implicit_global_asset_job_def().get_subset(
        asset_selection=keys, asset_check_selection=checks
    )


@dataclass(frozen=True)
class RunPart:
    """One run of a job that :func:`run_parts` split: a subset of it, and the tags of its partition range."""

    job: dg.JobDefinition
    tags: Mapping[str, str]


def run_parts(job: dg.JobDefinition) -> list[RunPart]:
    """``job`` as the runs Dagster can execute, in order: one per partitions definition over all of its
    partitions (a partition range, so each file partition gets its own materialization and counts), then one
    with the unpartitioned rest. A partitioned asset here has only external upstreams (``upstream/*``), so
    running those first keeps the job's order."""
    graph = job.asset_layer.asset_graph
    parts: dict[object, set[dg.AssetKey]] = {}
    for key in job.asset_layer.selected_asset_keys:
        parts.setdefault(graph.get(key).partitions_def, set()).add(key)
    checks = {c for data in job.asset_layer.data for c in data.assets_def.check_keys}
    out = []
    for partitions, keys in sorted(parts.items(), key=lambda kv: kv[0] is None):
        tags: dict[str, str] = {}
        if partitions is not None:
            every = partitions.get_partition_keys()
            tags = {RANGE_START_TAG: every[0], RANGE_END_TAG: every[-1]}
        subset = job.get_subset(
            asset_selection=keys, asset_check_selection={c for c in checks if c.asset_key in keys}
        )
        out.append(RunPart(subset, tags))
    return out


def with_loggers(
    job: dg.JobDefinition, plan: RunPlan, sink: Sink | None, log_level: str = "INFO"
) -> tuple[dg.JobDefinition, dict[str, object]]:
    """``job`` logging to Dagster's console logger (at ``log_level``) and, when ``sink`` is given, to the
    progress display; with the run config that turns them on (Dagster starts only the loggers it names)."""
    loggers: dict[str, dg.LoggerDefinition] = {"console": dg.colored_console_logger}
    config: dict[str, object] = {"console": {"config": {"log_level": log_level}}}
    if sink is not None:
        loggers["progress"] = progress_logger(plan, sink)
        config["progress"] = {}
    return job.with_logger_defs(loggers), {"loggers": config}


def seconds_by_layer(instance: dg.DagsterInstance, run_id: str, plan: RunPlan) -> dict[str, float]:
    """Wall seconds of the run's steps, summed per layer (landing, raw, checks, dbt, reports), in run order."""
    kinds = {
        dg.DagsterEventType.STEP_START,
        dg.DagsterEventType.STEP_SUCCESS,
        dg.DagsterEventType.STEP_FAILURE,
    }
    started: dict[str, float] = {}
    out: dict[str, float] = {}
    for record in instance.all_logs(run_id, of_type=kinds):
        step = record.step_key or ""
        if record.dagster_event_type == dg.DagsterEventType.STEP_START:
            started[step] = record.timestamp
        elif step in started:
            assets = plan.step_assets.get(step, ())
            layer = layer_of(assets[0]) if assets else "checks"
            out[layer] = out.get(layer, 0.0) + record.timestamp - started.pop(step)
    return out
