"""Report assets (group ``reports``): one PNG figure per asset ``report/<figure>`` from the analysis marts, and
``report/report`` writing ``$WAREHOUSE_DIR/report/report.md``.

Readers only: they depend on the analysis marts and on the relations that count the facts' real and synthetic
rows (the facts themselves; for the fact of samples, the hourly utilization mart), so in a run they start after
dbt has built them; :func:`pipelines.report.queries.fetch` waits for any writer still holding the warehouse. Each figure shows inline on its asset (a markdown image with a ``data:`` URI) and is
written to ``$WAREHOUSE_DIR/report/<figure>.png``. Nothing here imports matplotlib or touches the warehouse
when the definitions load.
"""

import base64
import json
from datetime import UTC, datetime

import dagster as dg

from pipelines.analysis.fit_tables import TABLES as FIT_TABLES
from pipelines.atomic_write import write_bytes
from pipelines.defs.keys import REPORT_GROUP, SETTINGS, fits_key, report_key, settings_of
from pipelines.docs_server import docs_link
from pipelines.report.catalog import FIGURES, REPORT_NAME, FigureSpec
from pipelines.report.queries import (
    COMPARISON_MARTS,
    COMPARISONS,
    DATASET_ORIGINS,
    FITS,
    ORIGIN_SOURCES,
)

REPORT_FILE = "report.md"


def markdown_image(png: bytes, alt: str) -> str:
    """The figure inline, as the Dagster UI renders markdown metadata."""
    return f"![{alt}](data:image/png;base64,{base64.b64encode(png).decode('ascii')})"


def _figure_asset(spec: FigureSpec) -> dg.AssetsDefinition:
    @dg.asset(
        key=report_key(spec.name),
        deps=[
            *(dg.AssetKey(["analysis", m]) for m in spec.marts),
            dg.AssetKey(ORIGIN_SOURCES[spec.fact][0].split(".")),
        ],
        group_name=REPORT_GROUP,
        kinds={"python", "duckdb"},
        required_resource_keys={SETTINGS},
        description=f"{spec.description} Written to `$WAREHOUSE_DIR/report/{spec.name}.png`.",
    )
    def _figure(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        from pipelines.report.origin import RowOrigin
        from pipelines.report.queries import fetch

        settings = settings_of(context)
        frames = fetch(settings, {"data": spec.sql, "origin": spec.origin_sql()})
        data, counts = frames["data"], frames["origin"]
        origin = RowOrigin(
            spec.fact_label,
            int(counts["real_rows"].iloc[0]) if not counts.empty else 0,
            int(counts["synthetic_rows"].iloc[0]) if not counts.empty else 0,
        )
        extra = {"start_date": settings.burstgpt_start_date} if spec.uses_start_date else {}
        png = spec.plot(data, origin, **extra)
        path = settings.report_dir / f"{spec.name}.png"
        write_bytes(path, png)
        by_series = (
            {str(k): int(v) for k, v in data.groupby(spec.series).size().items()} if not data.empty else {}
        )
        metadata: dict[str, object] = {}
        if data.empty:
            reason = data.attrs.get("missing") or f"no rows in analysis.{', analysis.'.join(spec.marts)}"
            context.log.warning(f"{spec.name}: drawn as 'no data' ({reason})")
            metadata["no_data"] = reason
        return dg.MaterializeResult(
            metadata={
                **metadata,
                "figure": dg.MetadataValue.md(markdown_image(png, spec.title)),
                "path": dg.MetadataValue.path(str(path)),
                "rows_plotted": len(data),
                f"rows_by_{spec.series}": dg.MetadataValue.json(by_series),
                "source_rows_real": origin.real,
                "source_rows_synthetic": origin.synthetic,
                "png_bytes": len(png),
            }
        )

    return _figure


def _report_asset() -> dg.AssetsDefinition:
    marts = sorted({m for spec in FIGURES for m in spec.marts} | set(COMPARISON_MARTS))

    @dg.asset(
        key=report_key(REPORT_NAME),
        deps=[
            *(report_key(spec.name) for spec in FIGURES),
            *(dg.AssetKey(["analysis", m]) for m in marts),
            *(dg.AssetKey(relation.split(".")) for relation, _ in ORIGIN_SOURCES.values()),
            *(fits_key(t) for t in FIT_TABLES),
        ],
        group_name=REPORT_GROUP,
        kinds={"python", "duckdb"},
        required_resource_keys={SETTINGS},
        description=(
            "The one-page report `$WAREHOUSE_DIR/report/report.md`: which rows are real and which synthetic "
            "(with a banner when any is synthetic), the figures, the marts' numbers beside the published "
            "ones, and the fitted arrival and token-length models."
        ),
    )
    def _report(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        import pandas as pd

        from pipelines.report.page import banner, origin_section, origin_totals, report_markdown
        from pipelines.report.queries import fetch

        settings = settings_of(context)
        frames = fetch(
            settings,
            {
                **{f"origin:{k}": q for k, q in DATASET_ORIGINS.items()},
                **{f"fits:{k}": q for k, q in FITS.items()},
                **COMPARISONS,
            },
        )
        parts = [df for k, df in frames.items() if k.startswith("origin:") and not df.empty]
        origins = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        present = [s for s in FIGURES if (settings.report_dir / f"{s.name}.png").exists()]
        text = report_markdown(
            origins=origins,
            comparisons={k: v for k, v in frames.items() if not k.startswith(("origin:", "fits:"))},
            fits={k.removeprefix("fits:"): v for k, v in frames.items() if k.startswith("fits:")},
            figures=[(f"{s.name}.png", s.title) for s in present],
            start_date=settings.burstgpt_start_date,
            generated_at=datetime.now(UTC),
        )
        path = settings.report_dir / REPORT_FILE
        write_bytes(path, text.encode("utf-8"))
        missing = [s.name for s in FIGURES if s not in present]
        if missing:
            context.log.warning(f"report: figures not rendered yet: {', '.join(missing)}")
        totals = origin_totals(origins)
        return dg.MaterializeResult(
            metadata={
                "summary": dg.MetadataValue.md(f"{banner(totals)}\n\n{origin_section(origins)}"),
                "path": dg.MetadataValue.path(str(path)),
                "report": dg.MetadataValue.url(docs_link(settings, path)),
                "figures": len(present),
                "rows_real": totals.real,
                "rows_synthetic": totals.synthetic,
                "has_synthetic_rows": totals.synthetic > 0,
                "origin_by_dataset": dg.MetadataValue.json(
                    json.loads(origins.to_json(orient="records")) if not origins.empty else []
                ),
            }
        )

    return _report


def report_assets() -> list[dg.AssetsDefinition]:
    """One asset per figure, then ``report/report``."""
    return [*(_figure_asset(spec) for spec in FIGURES), _report_asset()]
