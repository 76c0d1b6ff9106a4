"""Replay export assets (group ``exports``): one asset ``export/<format>`` per format of
:mod:`pipelines.export.formats`, written from the marts to ``$WAREHOUSE_DIR/exports/<file>`` with its
``<file>.meta.json`` sidecar.

On demand: no automation condition, and neither ``trace-warehouse run`` without ``--select`` nor the
refresh job builds them (``EVERYTHING`` leaves the group out). Materialize one from the UI with a window in
its launchpad config, or ``trace-warehouse run --select 'group:exports'`` with the defaults below: the
first hour of requests, the first day of Seren's jobs. Readers only; nothing is read at import time.
"""

from typing import Literal

import dagster as dg
from pydantic import Field

from pipelines.defs.keys import EXPORT_GROUP, SETTINGS, export_key, settings_of
from pipelines.export.formats import FORMATS, ExportFormat

PREVIEW_LINES = 6
TRANSFORM_FIELDS = ("rate_scale", "burstiness", "input_scale", "output_scale", "seed")
FIDELITY_CHECKS = ("input_lengths", "output_lengths", "burstiness", "rate")  # pipelines/export/fidelity.py


class RequestExportConfig(dg.Config):
    window_start: str = Field(
        default="start",
        description="trace seconds (3600), a duration from day 0 (36h), an ISO time (needs "
        "BURSTGPT_START_DATE), or 'start' (the first request selected)",
    )
    window_end: str = Field(default="+1h", description="as window_start, '+DURATION' after it, or 'end'")
    model: str | None = Field(default=None, description="ChatGPT or GPT-4; all when unset")
    log_type: str | None = Field(default=None, description="'Conversation log' or 'API log'; all when unset")
    speed: float = Field(default=1.0, description="arrival-time speed-up: 2 replays twice as fast")
    max_tokens: int | None = Field(
        default=None, description="limit request + response tokens (Vidur's default max_tokens is 4096)"
    )
    over_max: Literal["drop", "clip"] = Field(
        default="drop", description="with max_tokens: leave such requests out, or clip their tokens"
    )
    rebase: bool = Field(default=False, description="arrival 0 is the first request written")
    session: str | None = Field(default=None, description="one BurstGPT session (Session ID) only")
    sessions_only: bool = Field(default=False, description="only requests that belong to a session")
    rate_scale: float | None = Field(
        default=None, description="transform: re-draw arrivals at X times the rate"
    )
    burstiness: float | None = Field(
        default=None, description="transform: re-draw arrivals at this Gamma shape"
    )
    input_scale: float = Field(default=1.0, description="transform: multiply request tokens")
    output_scale: float = Field(default=1.0, description="transform: multiply response tokens")
    seed: int = Field(default=0, description="transform: seed of the re-drawn arrivals")


class MooncakeExportConfig(RequestExportConfig):
    block_size: int = Field(default=512, description="prompt tokens per hash id")
    session_ids: bool = Field(default=False, description="write the BurstGPT Session ID as session_id")


class JobExportConfig(dg.Config):
    window_start: str = Field(default="start", description="ISO date or time in UTC, or 'start'")
    window_end: str = Field(default="+1d", description="ISO date or time in UTC, '+DURATION', or 'end'")
    cluster: str | None = Field(default="seren", description="seren, kalos, …; all clusters when unset")
    speed: float = Field(default=1.0, description="submit-time speed-up: 2 submits twice as fast")


EXPORT_CONFIGS: dict[str, type[dg.Config]] = {"requests": RequestExportConfig, "jobs": JobExportConfig}


def _materialize(
    context: dg.AssetExecutionContext, fmt: ExportFormat, config: dg.Config
) -> dg.MaterializeResult:
    from pipelines.export.effects import warning_line
    from pipelines.export.transforms import TransformError, TransformSpec
    from pipelines.export.writer import ExportError, ExportRequest, export

    selection = config.model_dump()  # the window's two ends, the transform, then ExportRequest's fields
    window = (selection.pop("window_start"), selection.pop("window_end"))
    spec = {k: selection.pop(k) for k in TRANSFORM_FIELDS if k in selection}
    try:
        transform = TransformSpec(**spec) if spec else None
        result = export(
            settings_of(context), ExportRequest(fmt.name, window, **selection, transform=transform)
        )
    except (ExportError, TransformError) as exc:
        raise dg.Failure(description=f"export/{fmt.name}: {exc}") from None
    meta = result.meta
    if meta["data_origin"] != "real":
        context.log.warning(f"export/{fmt.name}: {meta['synthetic_notice']}")
    for effect in meta["consumer_effects"]:
        context.log.warning(f"export/{fmt.name}: {warning_line(effect).removeprefix('warning: ')}")
    with result.path.open(encoding="utf-8") as f:
        preview = "".join(line for _, line in zip(range(PREVIEW_LINES), f, strict=False))
    counts = ("request_tokens", "response_tokens", "total_tokens", "gpu_num", "duration_s")
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(str(result.path)),
            "sidecar": dg.MetadataValue.path(str(result.sidecar)),
            "rows": result.rows,
            **{k: meta[k] for k in counts if k in meta},
            "window_start": str(meta["window"]["start"]),
            "window_end": str(meta["window"]["end"]),
            "data_origin": meta["data_origin"],
            "synthetic_rows": result.synthetic_rows,
            "sha256": meta["sha256"],
            "consumer": meta["consumer"],
            "consumer_effects": dg.MetadataValue.json(meta["consumer_effects"]),
            "preview": dg.MetadataValue.md(f"```\n{preview}```"),
        },
        check_results=_fidelity_results(fmt, meta),
    )


def _fidelity_results(fmt: ExportFormat, meta: dict) -> list[dg.AssetCheckResult]:
    """The export's fidelity checks as asset checks; an export without a transform is its source."""
    if fmt.kind != "requests":
        return []
    checks = {c["name"]: c for c in meta.get("fidelity", [])}
    results = []
    for name in FIDELITY_CHECKS:
        check = checks.get(name)
        if check is None:
            why = "no transform: arrivals and lengths are the source's" if not checks else "too few requests"
            results.append(dg.AssetCheckResult(check_name=name, passed=True, metadata={"note": why}))
            continue
        results.append(
            dg.AssetCheckResult(
                check_name=name,
                passed=check["passed"],
                metadata={k: check[k] for k in ("value", "target", "tolerance", "description")},
            )
        )
    return results


def _export_asset(fmt: ExportFormat) -> dg.AssetsDefinition:
    # Dagster reads the config's fields from the annotation below
    config_class = MooncakeExportConfig if fmt.writer == "mooncake" else EXPORT_CONFIGS[fmt.kind]

    @dg.asset(
        key=export_key(fmt.name),
        deps=[dg.AssetKey(["marts", m]) for m in fmt.marts],
        group_name=EXPORT_GROUP,
        kinds={"python", "duckdb"},
        required_resource_keys={SETTINGS},
        description=f"{fmt.description} For {fmt.consumer}. Written to `$WAREHOUSE_DIR/exports/{fmt.file_name}`.",
        check_specs=[
            dg.AssetCheckSpec(
                name, asset=export_key(fmt.name), description=f"fidelity of a transform: {name}"
            )
            for name in (FIDELITY_CHECKS if fmt.kind == "requests" else ())
        ],
    )
    def _export(context: dg.AssetExecutionContext, config: config_class) -> dg.MaterializeResult:  # type: ignore[valid-type]
        return _materialize(context, fmt, config)

    return _export


def export_assets() -> list[dg.AssetsDefinition]:
    """One asset per replay format."""
    return [_export_asset(f) for f in FORMATS.values()]
