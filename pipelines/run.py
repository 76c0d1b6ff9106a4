"""``trace-warehouse run``: materialize a selection of assets in this process, then print a one-screen summary.

While it runs, a terminal shows a few live lines of progress (``pipelines/progress.py``), a pipe one line per
finished asset; Dagster's and dbt's logs go to ``$WAREHOUSE_DIR/logs/run-<time>.log`` (``--verbose``: to the
terminal, as they come).

The run uses the shared Dagster instance (``$DAGSTER_HOME``), so it appears in the UI's run history, and it
holds the warehouse writer lock for its whole duration: two runs started together finish one after the
other instead of failing on DuckDB's single-writer lock.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from pipelines.progress import RunProgress, make_display
from pipelines.run_log import capture_output, new_log_path, terminal_width
from pipelines.settings import Settings
from pipelines.warehouse.db import writer_lock


@dataclass
class AssetLine:
    asset: str
    status: str = "ok"
    metadata: dict[str, object] = field(default_factory=dict)
    error: str = ""


def _value(meta: dict, key: str) -> object:
    v = meta.get(key)
    return getattr(v, "value", v)


SUMMED = ("files", "rows", "rejects")  # the summary's counts, added up over a run's file partitions


def _sum(a: dict, b: dict, key: str) -> int:
    return sum(v for v in (_value(a, key), _value(b, key)) if isinstance(v, int))


def _collect(
    results, step_assets: Mapping[str, str], selected: set[str]
) -> list[AssetLine]:  # results: list[ExecuteInProcessResult]
    from pipelines.defs.run_events import root_message

    lines: dict[str, AssetLine] = {}
    events = [ev for result in results for ev in result.all_events]
    for ev in events:
        if ev.event_type_value != "ASSET_MATERIALIZATION":
            continue
        mat = ev.event_specific_data.materialization
        key = mat.asset_key.to_user_string()
        meta = dict(mat.metadata)
        if mat.partition is not None and key in lines:  # a run over file partitions: one event per partition
            meta = {k: _sum(lines[key].metadata, meta, k) for k in SUMMED}
        lines[key] = AssetLine(key, "ok", meta)
    for ev in events:
        if ev.event_type_value == "STEP_FAILURE":
            msg = root_message(ev.event_specific_data.error)
            key = step_assets.get(ev.step_key or "", ev.step_key or "?")
            lines[key] = AssetLine(key, "FAILED", {}, msg)
        elif ev.event_type_value == "STEP_SKIPPED":
            key = step_assets.get(ev.step_key or "", ev.step_key or "?")
            lines.setdefault(key, AssetLine(key, "skipped"))
    for key in selected - set(lines):
        lines[key] = AssetLine(key, "not run", {}, "an upstream asset failed")
    return sorted(lines.values(), key=lambda a: a.asset)


DETAILED_LAYERS = ("landing", "raw")  # one line per asset; other layers (dbt models) one line per layer


def format_summary(lines: list[AssetLine], seconds: float) -> str:
    def num(meta: dict, key: str) -> str:
        v = _value(meta, key)
        return f"{v:,}" if isinstance(v, int) else "-"

    header = f"{'asset':<42} {'status':<8} {'files':>6} {'rows':>12} {'rejected':>9}"
    out = [header, "-" * len(header)]
    grouped: dict[str, int] = {}
    for a in lines:
        layer = a.asset.split("/", 1)[0]
        if a.status == "ok" and layer not in DETAILED_LAYERS:
            grouped[layer] = grouped.get(layer, 0) + 1
            continue
        out.append(
            f"{a.asset:<42} {a.status:<8} {num(a.metadata, 'files'):>6} {num(a.metadata, 'rows'):>12} "
            f"{num(a.metadata, 'rejects'):>9}"
        )
        if a.error:
            out += [f"    {line}" for line in a.error.splitlines()[:6]]
    out += [f"{layer + '/* (' + str(n) + ' assets)':<42} {'ok':<8}" for layer, n in sorted(grouped.items())]
    ok = sum(a.status == "ok" for a in lines)
    failed = sum(a.status == "FAILED" for a in lines)
    rows = sum(v for a in lines if isinstance(v := _value(a.metadata, "rows"), int))
    rejects = sum(v for a in lines if isinstance(v := _value(a.metadata, "rejects"), int))
    out.append(
        f"{ok} asset(s) materialized, {failed} failed; {rows:,} rows loaded, {rejects:,} rejected; {seconds:.1f}s"
    )
    return "\n".join(out)


def _header(settings: Settings, selection: str | None, log_path: Path | None) -> None:
    print(
        f"trace-warehouse run: source={settings.source} warehouse={settings.warehouse_dir} "
        f"selection={selection or 'everything'}",
        file=sys.stderr,
    )
    if settings.source == "sample":
        print(
            "note: the sample source is SYNTHETIC data (plus a few real rows), not the real traces",
            file=sys.stderr,
        )
    if log_path is not None:
        print(f"log: {log_path} (--verbose shows it here instead)", file=sys.stderr, flush=True)


def _execute(
    settings: Settings, selection: str | None, terminal: TextIO | None
):  # -> list[ExecuteInProcessResult]
    """Build the job and run it in this process (one run per partitions definition in it, then the rest:
    :func:`~pipelines.defs.run_events.run_parts`); with ``terminal``, show the progress there."""
    import dagster as dg

    from pipelines.definitions import all_assets
    from pipelines.defs.automation import EVERYTHING
    from pipelines.defs.checks import family_asset_checks
    from pipelines.defs.instance import open_instance
    from pipelines.defs.resources import resource_defs
    from pipelines.defs.run_events import plan_of, run_job, run_parts, seconds_by_layer, with_loggers

    chosen = dg.AssetSelection.from_string(selection) if selection else None
    job = run_job(
        [*all_assets(settings), *family_asset_checks()],
        chosen or EVERYTHING,  # everything but the on-demand exports
        resource_defs(settings),
    )
    plan = plan_of(job)
    display = (
        make_display(RunProgress(plan.totals), terminal, terminal.isatty(), terminal_width(terminal))
        if terminal is not None
        else nullcontext(None)
    )
    results, stages = [], {}
    with display as shown, open_instance(settings) as instance:
        # the log file has every record (Dagster's events are DEBUG); --verbose shows INFO, as before
        level = "INFO" if terminal is None else "DEBUG"
        for part in run_parts(job):
            logged, run_config = with_loggers(part.job, plan, shown.handle if shown else None, level)
            result = logged.execute_in_process(
                run_config=run_config,
                instance=instance,
                raise_on_error=False,
                tags={"trace-warehouse/source": settings.source, **part.tags},
            )
            results.append(result)
            for layer, seconds in seconds_by_layer(instance, result.run_id, plan).items():
                stages[layer] = stages.get(layer, 0.0) + seconds
    step_assets = {step: keys[0] for step, keys in plan.step_assets.items() if len(keys) == 1}
    selected = {key for keys in plan.step_assets.values() for key in keys}
    return results, step_assets, selected, stages


def run_pipeline(settings: Settings, selection: str | None, *, verbose: bool = False) -> int:
    """Materialize ``selection`` (default: everything). Progress on stdout, logs to a file (``verbose``:
    Dagster's and dbt's logs on the terminal, as they come)."""
    from pipelines.defs.file_checks import files_failed
    from pipelines.validate.summary import format_check_summary

    log_path = None if verbose else new_log_path(settings)
    _header(settings, selection, log_path)
    started = time.monotonic()
    waiting = "another run is writing this warehouse; waiting for it to finish"
    with (
        writer_lock(settings, wait_message=waiting),
        capture_output(log_path) if log_path else nullcontext(None) as terminal,
    ):
        results, step_assets, selected, stages = _execute(settings, selection, terminal)
    print(format_summary(_collect(results, step_assets, selected), time.monotonic() - started))
    if stages:
        print("time by stage: " + " · ".join(f"{layer} {sec:.1f}s" for layer, sec in stages.items()))
    checks = [c for result in results for c in result.get_asset_check_evaluations()]
    print(format_check_summary(checks))
    if log_path is not None:
        print(f"full log (Dagster and dbt): {log_path}")
    return 0 if all(r.success for r in results) and not files_failed(checks) else 1
