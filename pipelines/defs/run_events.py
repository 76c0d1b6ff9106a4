"""What ``trace-warehouse run`` learns from its runs' records, as they come.

:func:`watch_run` reads a run's records from the Dagster instance (the event log, the same one the UI shows)
while the run executes and hands each to a :class:`RunRecorder`, which turns them into the plain events of the
progress display (``pipelines/progress.py``) and keeps what the run's summary needs: one line per asset, the
checks' evaluations, the seconds per layer and the stages skipped.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

import dagster as dg

from pipelines.defs.rebuild import parse_skip, skipped_downstream
from pipelines.defs.run_jobs import RunPlan
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

# The landing asset's progress lines (pipelines/sources/landing.py): "linked|downloaded PATH (N bytes)",
# "downloading PATH: N of M bytes (p %)".
_LANDED = re.compile(r"^(?:linked|downloaded) (?P<file>\S+) \((?P<bytes>\d+) bytes\)")
_DOWNLOADING = re.compile(r"^downloading (?P<file>\S+): (?P<bytes>\d+)")
WARNING = 30  # logging.WARNING
POLL_SECONDS = 0.2

Sink = Callable[[ProgressEvent], None]
SUMMED = ("files", "rows", "rejects")  # the summary's counts, added up over a run's file partitions


@dataclass
class AssetLine:
    """One asset in the run's summary."""

    asset: str
    status: str = "ok"  # ok | FAILED | skipped | not run
    metadata: dict[str, object] = field(default_factory=dict)
    error: str = ""


def metadata_value(meta: dict, key: str) -> object:
    value = meta.get(key)
    return getattr(value, "value", value)


class RunRecorder:
    """The records of one or more runs of a :class:`RunPlan`, in the order they were written."""

    def __init__(self, plan: RunPlan, sink: Sink | None = None) -> None:
        self.plan = plan
        self.sink = sink
        self.lines: dict[str, AssetLine] = {}
        self.checks: list[dg.AssetCheckEvaluation] = []
        self.seconds: dict[str, float] = {}  # wall seconds of the steps, summed per layer
        self.skips: dict[str, str] = {}  # stage → why it was skipped (its `<stage>: skipped — <why>` line)
        self.failed = False
        self._finished: set[str] = set()  # asset and check keys already reported to the display
        self._partition_rows: dict[str, int] = {}  # rows of a partitioned asset's materializations so far
        self._started: dict[str, float] = {}
        self._dbt_skipped = False  # the dbt step said it was not needed

    def record(self, entry: dg.EventLogEntry) -> None:
        for out in self._events(entry):
            if self.sink is not None:
                with suppress(Exception):  # the display must never break the run
                    self.sink(out)

    def summary_lines(self) -> list[AssetLine]:
        """Every selected asset's line: what was recorded, and for the rest why they did not run."""
        lines = dict(self.lines)
        for key in self.plan.selected - set(lines):  # its step succeeded without it (dbt had nothing to do)
            lines[key] = (
                AssetLine(key, "not run", {}, "an upstream asset failed")
                if self.failed
                else AssetLine(key, "skipped")
            )
        return sorted(lines.values(), key=lambda a: a.asset)

    def _assets(self, step: str | None) -> tuple[str, ...]:
        return self.plan.step_assets.get(step or "", ())

    def _layer(self, step: str | None) -> str:
        assets = self._assets(step)
        return layer_of(assets[0]) if assets else "checks"

    def _events(self, entry: dg.EventLogEntry) -> Iterable[ProgressEvent]:
        event = entry.dagster_event
        if event is None:
            yield from self._message(entry.user_message, entry.level)
            return
        step = entry.step_key
        if event.is_step_start:
            self._started[step or ""] = entry.timestamp
            assets = self._assets(step)
            yield StepStarted(_step_label(step or "?", assets), self._layer(step))
        elif (event.is_step_success or event.is_step_failure) and (
            started := self._started.pop(step or "", None)
        ) is not None:
            layer = self._layer(step)
            self.seconds[layer] = self.seconds.get(layer, 0.0) + entry.timestamp - started
        if (mat := entry.asset_materialization) is not None:
            yield from self._materialized(mat)
        elif (evaluation := entry.asset_check_evaluation) is not None:
            self.checks.append(evaluation)
            check = evaluation.asset_check_key.to_user_string()
            self._finished.add(check)
            yield CheckFinished(check, bool(evaluation.passed))
        elif event.is_step_success:
            for key in (
                k for k in self._assets(step) if k in self._partition_rows and k not in self._finished
            ):
                self._finished.add(key)
                yield AssetFinished(key, "ok", self._partition_rows[key])
        elif event.is_step_failure or event.is_step_skipped:
            yield from self._not_done(step, event)

    def _materialized(self, mat: dg.AssetMaterialization) -> Iterable[ProgressEvent]:
        key = mat.asset_key.to_user_string()
        meta = dict(mat.metadata)
        rows = metadata_value(meta, "rows")
        rows = rows if isinstance(rows, int) else None
        if mat.partition is not None:  # one event per file partition: the asset is done at its step's success
            if key in self.lines:
                meta = {k: _sum(self.lines[key].metadata, meta, k) for k in SUMMED}
            self.lines[key] = AssetLine(key, "ok", meta)
            self._partition_rows[key] = self._partition_rows.get(key, 0) + (rows or 0)
            return
        self.lines[key] = AssetLine(key, "ok", meta)
        self._finished.add(key)
        yield AssetFinished(key, "ok", rows)

    def _not_done(self, step: str | None, event: dg.DagsterEvent) -> Iterable[ProgressEvent]:
        """A failed or skipped step: what it did not get to is done, not passed."""
        assets = self._assets(step)
        if event.is_step_failure:
            self.failed = True
            error = root_message(event.step_failure_data.error)
            for key in assets or (step or "?",):
                if key not in self.lines or len(assets) == 1:
                    self.lines[key] = AssetLine(key, "FAILED", {}, error)
            status = "FAILED"
        else:
            for key in assets or (step or "?",):
                self.lines.setdefault(key, AssetLine(key, "skipped"))
            error, status = "", "skipped"
            if assets:
                yield StageSkipped(layer_of(assets[0]), skipped_downstream(self._dbt_skipped))
        for key in (k for k in assets if k not in self._finished):
            self._finished.add(key)
            yield AssetFinished(key, status, None, error)
        for check in (c for c in self.plan.step_checks.get(step or "", ()) if c not in self._finished):
            self._finished.add(check)
            yield CheckFinished(check, False)

    def _message(self, message: str, level: int | str) -> Iterable[ProgressEvent]:
        if skip := parse_skip(message):
            self._dbt_skipped = self._dbt_skipped or skip[0] == "dbt"
            self.skips.setdefault(*skip)
            yield StageSkipped(*skip)
        elif m := _LANDED.match(message) or _DOWNLOADING.match(message):
            yield BytesLanded(m["file"], int(m["bytes"]))
        if isinstance(level, int) and level >= WARNING:
            yield Warned(message)


def _sum(a: dict, b: dict, key: str) -> int:
    return sum(v for v in (metadata_value(a, key), metadata_value(b, key)) if isinstance(v, int))


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


@contextmanager
def watch_run(instance: dg.DagsterInstance, run_id: str, recorder: RunRecorder) -> Iterator[None]:
    """Hand the records of run ``run_id`` to ``recorder`` while the body runs it (read every
    ``POLL_SECONDS`` in a thread), then every record left once it ended."""
    stop = threading.Event()
    cursor: list[str | None] = [None]

    def drain() -> None:
        while True:
            page = instance.get_records_for_run(run_id, cursor=cursor[0], limit=1000)
            for record in page.records:
                recorder.record(record.event_log_entry)
            cursor[0] = page.cursor
            if not page.has_more:
                return

    def poll() -> None:
        while not stop.wait(POLL_SECONDS):
            with suppress(Exception):  # a busy event log: the next poll (or the last drain) reads it
                drain()

    reader = threading.Thread(target=poll, name=f"records of {run_id}", daemon=True)
    reader.start()
    try:
        yield
    finally:
        stop.set()
        reader.join()
        drain()
