"""``trace-warehouse run``: materialize a selection of assets in this process, then print a one-screen summary.

The run uses the shared Dagster instance (``$DAGSTER_HOME``), so it appears in the UI's run history, and it
holds the warehouse writer lock for its whole duration: two runs started together finish one after the
other instead of failing on DuckDB's single-writer lock.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

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


def _root_message(err) -> str:  # err: SerializableErrorInfo | None
    """The user's error, not Dagster's wrapper: the innermost cause, without its exception class prefix."""
    while err is not None and err.cause is not None:
        err = err.cause
    text = (err.message if err else "failed").strip()
    head, sep, rest = text.partition(": ")
    return rest if sep and "." in head and " " not in head else text


def _collect(
    result, step_assets: dict[str, str], selected: set[str]
) -> list[AssetLine]:  # result: ExecuteInProcessResult
    lines: dict[str, AssetLine] = {}
    for ev in result.get_asset_materialization_events():
        mat = ev.event_specific_data.materialization
        key = mat.asset_key.to_user_string()
        lines[key] = AssetLine(key, "ok", dict(mat.metadata))
    for ev in result.all_events:
        if ev.event_type_value == "STEP_FAILURE":
            msg = _root_message(ev.event_specific_data.error)
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


def run_pipeline(settings: Settings, selection: str | None) -> int:
    import dagster as dg

    from pipelines.definitions import all_assets
    from pipelines.defs.checks import family_asset_checks
    from pipelines.defs.instance import open_instance
    from pipelines.defs.resources import resource_defs
    from pipelines.validate.summary import format_check_summary

    assets = all_assets(settings)
    chosen = dg.AssetSelection.from_string(selection) if selection else None
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
    started = time.monotonic()
    with (
        writer_lock(settings, wait_message="another run is writing this warehouse; waiting for it to finish"),
        open_instance(settings) as instance,
    ):
        result = dg.materialize(
            [*assets, *family_asset_checks()],
            selection=chosen or (dg.AssetSelection.all() | dg.AssetSelection.all_asset_checks()),
            instance=instance,
            resources=resource_defs(settings),
            raise_on_error=False,
            tags={"trace-warehouse/source": settings.source},
            run_config={"loggers": {"console": {"config": {"log_level": "INFO"}}}},
        )
    step_assets = {
        a.node_def.name: a.key.to_user_string() for a in assets if a.is_executable and len(a.keys) == 1
    }
    selected = {k.to_user_string() for k in (chosen or dg.AssetSelection.all()).resolve(assets)}
    print(format_summary(_collect(result, step_assets, selected), time.monotonic() - started))
    print(format_check_summary(result.get_asset_check_evaluations()))
    return 0 if result.success else 1
