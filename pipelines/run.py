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
from typing import TextIO

from pipelines.progress import LAYERS, RunProgress, layer_of, make_display
from pipelines.run_log import capture_output, new_log_path, terminal_width
from pipelines.settings import Settings
from pipelines.validate.summary import format_check_summary
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
    results, step_assets: Mapping[str, tuple[str, ...]], selected: set[str]
) -> list[AssetLine]:  # results: list[ExecuteInProcessResult]
    from pipelines.defs.run_events import root_message

    def keys_of(step: str | None) -> tuple[str, ...]:
        return step_assets.get(step or "") or (step or "?",)

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
    failed = False
    for ev in events:
        if ev.event_type_value == "STEP_FAILURE":
            failed = True
            msg = root_message(ev.event_specific_data.error)
            for key in keys_of(ev.step_key):
                if key not in lines or len(keys_of(ev.step_key)) == 1:
                    lines[key] = AssetLine(key, "FAILED", {}, msg)
        elif ev.event_type_value == "STEP_SKIPPED":
            for key in keys_of(ev.step_key):
                lines.setdefault(key, AssetLine(key, "skipped"))
    for key in selected - set(
        lines
    ):  # a step that succeeded without materializing it (dbt had nothing to do)
        lines[key] = (
            AssetLine(key, "not run", {}, "an upstream asset failed") if failed else AssetLine(key, "skipped")
        )
    return sorted(lines.values(), key=lambda a: a.asset)


DETAILED_LAYERS = ("landing", "raw")  # one line per asset; other layers (dbt models) one line per layer


def format_summary(lines: list[AssetLine], seconds: float, skips: Mapping[str, str] | None = None) -> str:
    """The run's table; ``skips``: the stages it did not need to rebuild, and why."""
    from pipelines.defs.rebuild import skipped_downstream

    def num(meta: dict, key: str) -> str:
        v = _value(meta, key)
        return f"{v:,}" if isinstance(v, int) else "-"

    header = f"{'asset':<42} {'status':<8} {'files':>6} {'rows':>12} {'rejected':>9}"
    out = [header, "-" * len(header)]
    grouped: dict[tuple[str, str], int] = {}
    for a in lines:
        layer = a.asset.split("/", 1)[0]
        if a.status in ("ok", "skipped") and layer not in DETAILED_LAYERS:
            grouped[(layer, a.status)] = grouped.get((layer, a.status), 0) + 1
            continue
        out.append(
            f"{a.asset:<42} {a.status:<8} {num(a.metadata, 'files'):>6} {num(a.metadata, 'rows'):>12} "
            f"{num(a.metadata, 'rejects'):>9}"
        )
        if a.error:
            out += [f"    {line}" for line in a.error.splitlines()[:6]]
    out += [
        f"{layer + '/* (' + str(n) + ' assets)':<42} {status:<8}"
        for (layer, status), n in sorted(grouped.items())
    ]
    skips = dict(skips or {})
    dbt_skipped = "dbt" in skips
    for a in lines:  # a stage Dagster skipped because dbt (or another step upstream) produced nothing
        stage = layer_of(a.asset)
        if a.status == "skipped" and stage not in skips:
            skips[stage] = skipped_downstream(dbt_skipped)
    order = {layer: i for i, layer in enumerate(LAYERS)}
    out += [
        f"{stage}: skipped — {skips[stage]}"
        for stage in sorted(skips, key=lambda s: order.get(s, len(order)))
    ]
    ok = sum(a.status == "ok" for a in lines)
    failed = sum(a.status == "FAILED" for a in lines)
    skipped = sum(a.status == "skipped" for a in lines)
    rows = sum(v for a in lines if isinstance(v := _value(a.metadata, "rows"), int))
    rejects = sum(v for a in lines if isinstance(v := _value(a.metadata, "rejects"), int))
    out.append(
        f"{ok} asset(s) materialized, {failed} failed, {skipped} skipped; {rows:,} rows loaded, {rejects:,} rejected; {seconds:.1f}s"
    )
    return "\n".join(out)


def _header(settings: Settings, selection: str | None) -> None:
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
    sys.stderr.flush()


def _skips(instance, run_ids: list[str]) -> dict[str, str]:
    """The stages the runs skipped, and why (their ``<stage>: skipped — <reason>`` log lines)."""
    from pipelines.defs.rebuild import parse_skip

    out: dict[str, str] = {}
    for run_id in run_ids:
        for record in instance.all_logs(run_id):
            if record.dagster_event is None and (skip := parse_skip(record.user_message or "")):
                out.setdefault(*skip)
    return out


def _changes_only(settings: Settings, instance, skips: dict[str, str]):
    """``run_job``'s ``narrow`` for a changes-only run: what :func:`~pipelines.defs.rebuild.stale_roots`
    starts from, and everything downstream of it; each layer of the selection left out goes to ``skips``."""
    import dagster as dg

    from pipelines.defs.rebuild import LEFT_OUT, stale_roots

    def narrow(graph, keys: set) -> set:
        roots = stale_roots(settings, instance, graph, keys)
        kept = (dg.AssetSelection.assets(*roots).downstream().resolve(graph) & keys) if roots else set()
        layers = {layer_of(key.to_user_string()) for key in kept}
        for key in sorted(keys - kept):
            layer = layer_of(key.to_user_string())
            if layer not in layers and layer in LEFT_OUT:
                skips.setdefault(layer, LEFT_OUT[layer])
        return kept

    return narrow


def _execute(
    settings: Settings, selection: str | None, terminal: TextIO | None, everything: bool
):  # -> list[ExecuteInProcessResult]
    """Build the job and run it in this process (one run per partitions definition in it, then the rest:
    :func:`~pipelines.defs.run_events.run_parts`); with ``terminal``, show the progress there. Unless
    ``everything``, only what changed is run (:mod:`pipelines.defs.rebuild`)."""
    import dagster as dg

    from pipelines.definitions import all_assets
    from pipelines.defs.automation import EVERYTHING
    from pipelines.defs.checks import family_asset_checks
    from pipelines.defs.instance import open_instance
    from pipelines.defs.rebuild import (
        CLI_ALL_TRIGGER,
        CLI_TRIGGER,
        TRIGGER_TAG,
        skip_message,
        stamp_if_graph_built,
    )
    from pipelines.defs.resources import resource_defs
    from pipelines.defs.run_events import plan_of, run_job, run_parts, seconds_by_layer, with_loggers

    chosen = dg.AssetSelection.from_string(selection) if selection else None
    results, stages, skips, graph_keys = [], {}, {}, set()
    with open_instance(settings) as instance:
        changes_only = None if everything else _changes_only(settings, instance, skips)

        def narrow(graph, keys: set) -> set:
            graph_keys.update(keys)
            return changes_only(graph, keys) if changes_only else keys

        job = run_job(
            [*all_assets(settings), *family_asset_checks()],
            chosen or EVERYTHING,  # everything but the on-demand exports
            resource_defs(settings),
            narrow,
        )
        if job is None:  # nothing to run: the summary says what was skipped and why
            if chosen is None:
                stamp_if_graph_built(settings, instance, graph_keys)
            return results, {}, set(), stages, skips
        for stage, why in skips.items():
            print(skip_message(stage, why), file=terminal or sys.stderr, flush=True)
        plan = plan_of(job)
        display = (
            make_display(RunProgress(plan.totals), terminal, terminal.isatty(), terminal_width(terminal))
            if terminal is not None
            else nullcontext(None)
        )
        with display as shown:
            # the log file has every record (Dagster's events are DEBUG); --verbose shows INFO, as before
            level = "INFO" if terminal is None else "DEBUG"
            for part in run_parts(job):
                logged, run_config = with_loggers(part.job, plan, shown.handle if shown else None, level)
                result = logged.execute_in_process(
                    run_config=run_config,
                    instance=instance,
                    raise_on_error=False,
                    tags={
                        "trace-warehouse/source": settings.source,
                        TRIGGER_TAG: CLI_ALL_TRIGGER if everything else CLI_TRIGGER,
                        **part.tags,
                    },
                )
                results.append(result)
                for layer, seconds in seconds_by_layer(instance, result.run_id, plan).items():
                    stages[layer] = stages.get(layer, 0.0) + seconds
        for stage, why in _skips(instance, [r.run_id for r in results]).items():
            skips.setdefault(stage, why)
        if chosen is None:
            stamp_if_graph_built(settings, instance, graph_keys)
    selected = {key for keys in plan.step_assets.values() for key in keys}
    return results, plan.step_assets, selected, stages, skips


def run_pipeline(
    settings: Settings, selection: str | None, *, verbose: bool = False, everything: bool = False
) -> int:
    """Materialize ``selection`` (default: everything): what changed since the last run, or with
    ``everything`` all of it. Progress on stdout, logs to a file (``verbose``: Dagster's and dbt's logs on the
    terminal, as they come)."""
    from pipelines.defs.rebuild import LEFT_OUT, graph_unchanged

    _header(settings, selection)
    started = time.monotonic()
    waiting = "another run is writing this warehouse; waiting for it to finish"
    with writer_lock(settings, wait_message=waiting):
        if selection is None and not everything and graph_unchanged(settings):
            print(format_summary([], time.monotonic() - started, LEFT_OUT))
            print(format_check_summary([]))
            return 0
        return _run_logged(settings, selection, verbose, everything, started)


def _run_logged(
    settings: Settings, selection: str | None, verbose: bool, everything: bool, started: float
) -> int:
    """The run through Dagster, its records in a new log file unless ``verbose``; its summary."""
    from pipelines.defs.file_checks import files_failed

    log_path = None if verbose else new_log_path(settings)
    if log_path is not None:
        print(f"log: {log_path} (--verbose shows it here instead)", file=sys.stderr, flush=True)
    with capture_output(log_path) if log_path else nullcontext(None) as terminal:
        results, step_assets, selected, stages, skips = _execute(settings, selection, terminal, everything)
    print(format_summary(_collect(results, step_assets, selected), time.monotonic() - started, skips))
    if stages:
        print("time by stage: " + " · ".join(f"{layer} {sec:.1f}s" for layer, sec in stages.items()))
    checks = [c for result in results for c in result.get_asset_check_evaluations()]
    print(format_check_summary(checks))
    if log_path is not None:
        print(f"full log (Dagster and dbt): {log_path}")
    return 0 if all(r.success for r in results) and not files_failed(checks) else 1
