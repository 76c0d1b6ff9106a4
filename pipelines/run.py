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

DETAILED_LAYERS = ("landing", "raw")  # one line per asset; other layers (dbt models) one line per layer


def format_summary(lines: list, seconds: float, skips: Mapping[str, str] | None = None) -> str:
    """The run's table; ``skips``: the stages it did not need to rebuild, and why."""
    from pipelines.defs.rebuild import skipped_downstream
    from pipelines.defs.run_events import metadata_value as _value

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


def _changes_only(settings: Settings, instance, skips: dict[str, str]):
    """``plan_runs``' ``narrow`` for a changes-only run: what :func:`~pipelines.defs.rebuild.stale_roots`
    starts from, and everything downstream of it; each layer of the selection left out goes to ``skips``."""
    import dagster as dg

    from pipelines.defs.rebuild import LEFT_OUT, stale_roots

    def narrow(assets, keys: set) -> set:
        roots = stale_roots(settings, instance, assets, keys)
        kept = (dg.AssetSelection.assets(*roots).downstream().resolve(assets) & keys) if roots else set()
        layers = {layer_of(key.to_user_string()) for key in kept}
        for key in sorted(keys - kept):
            layer = layer_of(key.to_user_string())
            if layer not in layers and layer in LEFT_OUT:
                skips.setdefault(layer, LEFT_OUT[layer])
        return kept

    return narrow


@dataclass
class RunOutcome:
    """What the runs of ``trace-warehouse run`` did: the summary's lines and figures, and whether all passed."""

    lines: list = field(default_factory=list)  # list
    checks: list = field(default_factory=list)  # list[AssetCheckEvaluation]
    seconds: dict[str, float] = field(default_factory=dict)  # per layer
    skips: dict[str, str] = field(default_factory=dict)
    success: bool = True


def _execute(
    settings: Settings, selection: str | None, terminal: TextIO | None, everything: bool
) -> RunOutcome:
    """Plan the runs and execute them in this process (:func:`~pipelines.defs.run_jobs.plan_runs`: one run
    per partitions definition, then the rest); with ``terminal``, show the progress there. Unless
    ``everything``, only what changed is run (:mod:`pipelines.defs.rebuild`)."""
    import uuid

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
    from pipelines.defs.run_events import RunRecorder, watch_run
    from pipelines.defs.run_jobs import plan_runs

    chosen = dg.AssetSelection.from_string(selection) if selection else None
    outcome, graph_keys = RunOutcome(), set()
    with open_instance(settings) as instance:
        changes_only = None if everything else _changes_only(settings, instance, outcome.skips)

        def narrow(assets, keys: set) -> set:
            graph_keys.update(keys)
            return changes_only(assets, keys) if changes_only else keys

        plan = plan_runs(
            [*all_assets(settings), *family_asset_checks()],
            chosen or EVERYTHING,  # everything but the on-demand exports
            resource_defs(settings),
            narrow,
            loggers={"console": dg.colored_console_logger},
        )
        if plan is None:  # nothing to run: the summary says what was skipped and why
            if chosen is None:
                stamp_if_graph_built(settings, instance, graph_keys)
            return outcome
        for stage, why in outcome.skips.items():
            print(skip_message(stage, why), file=terminal or sys.stderr, flush=True)
        display = (
            make_display(RunProgress(plan.totals), terminal, terminal.isatty(), terminal_width(terminal))
            if terminal is not None
            else nullcontext(None)
        )
        # the log file has every record (Dagster's events are DEBUG); --verbose shows INFO
        level = "INFO" if terminal is None else "DEBUG"
        tags = {
            "trace-warehouse/source": settings.source,
            TRIGGER_TAG: CLI_ALL_TRIGGER if everything else CLI_TRIGGER,
        }
        with display as shown:
            recorder = RunRecorder(plan, shown.handle if shown else None)
            for part in plan.parts:
                run_id = str(uuid.uuid4())
                with watch_run(instance, run_id, recorder):
                    result = part.job.execute_in_process(
                        run_config={"loggers": {"console": {"config": {"log_level": level}}}},
                        instance=instance,
                        raise_on_error=False,
                        run_id=run_id,
                        tags={**tags, **part.tags},
                    )
                outcome.success = outcome.success and result.success
        if chosen is None:
            stamp_if_graph_built(settings, instance, graph_keys)
    outcome.lines, outcome.checks, outcome.seconds = (
        recorder.summary_lines(),
        recorder.checks,
        recorder.seconds,
    )
    for stage, why in recorder.skips.items():
        outcome.skips.setdefault(stage, why)
    return outcome


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
        outcome = _execute(settings, selection, terminal, everything)
    print(format_summary(outcome.lines, time.monotonic() - started, outcome.skips))
    if outcome.seconds:
        print("time by stage: " + " · ".join(f"{layer} {sec:.1f}s" for layer, sec in outcome.seconds.items()))
    print(format_check_summary(outcome.checks))
    if log_path is not None:
        print(f"full log (Dagster and dbt): {log_path}")
    return 0 if outcome.success and not files_failed(outcome.checks) else 1
