"""``report.md``: one page with the rows' origin (real or synthetic, loudly), the figures (linked relatively,
they sit beside it) and the numbers the analysis marts carry beside the published ones."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pipelines.report.notebook_map import notebook_section

if TYPE_CHECKING:
    import pandas as pd

MISSING = "—"


@dataclass(frozen=True)
class OriginTotals:
    real: int
    synthetic: int

    @property
    def total(self) -> int:
        return self.real + self.synthetic


def origin_totals(origins: pd.DataFrame) -> OriginTotals:
    if origins.empty:
        return OriginTotals(0, 0)
    return OriginTotals(int(origins["real_rows"].sum()), int(origins["synthetic_rows"].sum()))


# Cell formats ----------------------------------------------------------------------------------------------


def _blank(value: object) -> bool:
    """None, NaN and pandas' NA (nullable integer columns) are blank."""
    if value is None or type(value).__name__ == "NAType":
        return True
    try:
        return math.isnan(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def count(value: object) -> str:
    return MISSING if _blank(value) else f"{round(float(value)):,}"  # type: ignore[arg-type]


def share(value: object) -> str:
    return MISSING if _blank(value) else f"{float(value):.3f}"  # type: ignore[arg-type]


def number(value: object) -> str:
    if _blank(value):
        return MISSING
    v = float(value)  # type: ignore[arg-type]
    if v.is_integer() or abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:,.2f}".rstrip("0").rstrip(".")


Format = Callable[[object], str]
Column = tuple[str, str, str | None, Format]  # (header, computed column, published column or None, format)


def table(df: pd.DataFrame, columns: Sequence[Column]) -> str:
    """A markdown table; a column with a published twin shows "computed / published"."""
    head = "| " + " | ".join(h for h, *_ in columns) + " |"
    rule = "|" + "|".join("---" if pub is None and fmt is str else "---:" for _, _, pub, fmt in columns) + "|"
    lines = [head, rule]
    for _, row in df.iterrows():
        cells = []
        for _, col, pub, fmt in columns:
            cell = fmt(row[col])
            if pub is not None:
                cell = f"{cell} / {fmt(row[pub])}"
            cells.append(cell.replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# Sections --------------------------------------------------------------------------------------------------


def banner(totals: OriginTotals) -> str:
    """The statement at the top: loud when any row is synthetic."""
    if totals.total == 0:
        return (
            "> **No fact rows yet.** Load data and build the marts (`make run`) before reading this report."
        )
    if totals.synthetic:
        return (
            f"> ## ⚠️ SYNTHETIC DATA: {totals.synthetic:,} of {totals.total:,} fact rows are synthetic\n>\n"
            "> Synthetic rows were generated (the embedded sample, or test rows); they are **not measurements**. "
            "Every figure and number below mixes them with the real rows: do not cite them as results "
            "about the traces. The table below says which rows are real."
        )
    return f"> All {totals.real:,} fact rows are **real** (lines of the upstream files); none is synthetic."


def origin_section(origins: pd.DataFrame) -> str:
    intro = (
        "`real` rows are lines of the upstream files (AcmeTrace, BurstGPT; CC-BY-4.0), as the mirror's "
        "`MANIFEST.json` lists them; `synthetic` rows were generated. Counted on the facts' `_data_origin`."
    )
    if origins.empty:
        return f"## Which rows are real\n\n{intro}\n\nNo fact table holds rows yet."
    totals = origin_totals(origins)
    rows = origins.assign(total_rows=origins["real_rows"] + origins["synthetic_rows"])
    body = table(
        rows,
        [
            ("dataset", "dataset", None, str),
            ("scope", "scope", None, str),
            ("real", "real_rows", None, count),
            ("synthetic", "synthetic_rows", None, count),
            ("total", "total_rows", None, count),
        ],
    )
    body += f"\n| **all facts** | | **{totals.real:,}** | **{totals.synthetic:,}** | **{totals.total:,}** |"
    return f"## Which rows are real\n\n{intro}\n\n{body}"


def figures_section(figures: Sequence[tuple[str, str]]) -> str:
    """``figures``: (file name beside report.md, title)."""
    parts = ["## Figures"]
    for file_name, title in figures:
        parts.append(f"### {title}\n\n![{title}]({file_name})")
    return "\n\n".join(parts)


def _gpu_job_share_columns(header: str, category: str) -> tuple[Column, ...]:
    """The columns of a shares mart's table: cluster, ``category``, both shares beside the published ones."""
    return (
        ("cluster", "cluster_name", None, str),
        (header, category, None, str),
        ("share by count", "share_by_count", "published_share_by_count", share),
        ("share by GPU time", "share_by_reported_gpu_time", "published_share_by_gpu_time", share),
    )


COMPARISON_TABLES: tuple[tuple[str, str, tuple[Column, ...]], ...] = (
    (
        "reconciliation",
        "Reconciliation: every published number, its verdict and population (`analysis.reconciliation`; "
        "pass / mismatch only on real rows, not_comparable with the reason otherwise)",
        (
            ("measure", "measure", None, str),
            ("scope", "scope", None, str),
            ("subject", "subject", None, str),
            ("computed / published", "computed_value", "published_value", number),
            ("rows", "data_origin", None, str),
            ("verdict", "verdict", None, str),
            ("reason", "reason", None, str),
            ("population", "population", None, str),
        ),
    ),
    (
        "jobs",
        "Jobs per cluster (`analysis.cluster_job_counts`; published: rows of the released file / "
        "cluster_summary.csv)",
        (
            ("cluster", "cluster_name", None, str),
            ("jobs", "jobs", None, count),
            ("real", "real_jobs", None, count),
            ("synthetic", "synthetic_jobs", None, count),
            ("released file", "published_jobs_in_file", None, count),
            ("cluster_summary", "summary_jobs", None, count),
            ("GPU jobs / in released file", "gpu_jobs", "published_gpu_jobs_in_file", count),
            ("cluster_summary GPU jobs", "summary_gpu_jobs", None, count),
        ),
    ),
    (
        "states",
        "Final state of GPU jobs (`analysis.job_state_shares`; published: cluster_summary.csv)",
        _gpu_job_share_columns("state", "state_group"),
    ),
    (
        "types",
        "Job types of GPU jobs (`analysis.job_type_shares`; published: the paper's figures)",
        _gpu_job_share_columns("type", "job_type"),
    ),
    (
        "durations",
        "GPU-job duration and queueing delay, seconds (`analysis.job_duration_percentiles`; published: "
        "cluster_summary.csv)",
        (
            ("cluster", "cluster_name", None, str),
            ("measure", "measure", None, str),
            ("GPU jobs", "gpu_jobs", None, count),
            ("median", "p50_s", "published_median_s", number),
            ("mean", "mean_s", "published_mean_s", number),
            ("max", "max_s", "published_max_s", number),
        ),
    ),
    (
        "requests",
        "BurstGPT files (`analysis.request_file_summary`; published: the release and its without-fails twins)",
        (
            ("file", "file_name", None, str),
            ("requests", "requests", "published_rows", count),
            ("failed", "failed_requests", "published_failed_requests", count),
            ("not failed", "not_failed_requests", "published_not_failed_requests", count),
            ("max request tokens", "max_request_tokens", "published_max_request_tokens", count),
            ("max response tokens", "max_response_tokens", "published_max_response_tokens", count),
            (
                "not failed per hour",
                "mean_not_failed_requests_per_hour",
                "published_mean_requests_per_hour",
                number,
            ),
        ),
    ),
    (
        "utilization",
        "Utilization, % (`analysis.utilization_percentiles`; published: the official CDF files and the paper)",
        (
            ("cluster", "cluster_name", None, str),
            ("metric", "metric", None, str),
            ("samples", "samples", None, count),
            ("median", "p50", "published_median", number),
            ("share at 0", "share_at_zero", "published_share_at_zero", share),
            ("max", "max_value", "published_max", number),
        ),
    ),
)


def comparison_section(comparisons: Mapping[str, pd.DataFrame]) -> str:
    parts = [
        "## Computed beside published",
        "Cells read *warehouse / published*. The warehouse numbers count the rows loaded: they match the "
        "published ones only for the complete real release (never for the sample, a partial download or "
        f"synthetic rows). {MISSING}: not published or not computable.",
    ]
    for key, title, columns in COMPARISON_TABLES:
        df = comparisons.get(key)
        body = "No rows." if df is None or df.empty else table(df, columns)
        parts.append(f"### {title}\n\n{body}")
    return "\n\n".join(parts)


FITS_TABLES: tuple[tuple[str, str, tuple[Column, ...]], ...] = (
    (
        "arrivals",
        "Gamma inter-arrival fits per window (`analysis.arrival_fits`; shape = vLLM's `--burstiness`, "
        "rate = `--request-rate`): median and 10th–90th percentile over the windows",
        (
            ("model", "model_name", None, str),
            ("log type", "log_type", None, str),
            ("window", "window_kind", None, str),
            ("windows", "windows", None, count),
            ("median req/s", "median_rate_per_s", None, number),
            ("shape p10", "shape_p10", None, number),
            ("shape p50", "shape_p50", None, number),
            ("shape p90", "shape_p90", None, number),
            ("MLE shape p50", "shape_mle_p50", None, number),
            ("median KS D", "median_ks_statistic", None, number),
            ("rows", "data_origin", None, str),
        ),
    ),
    (
        "tokens",
        "Token-length fits of not-failed requests (`analysis.token_length_fits`; maximum likelihood)",
        (
            ("model", "model_name", None, str),
            ("log type", "log_type", None, str),
            ("tokens", "tokens", None, str),
            ("requests", "requests", None, count),
            ("median", "median_tokens", None, number),
            ("lognormal median", "lognormal_median", None, number),
            ("σ", "lognormal_sigma", None, number),
            ("lognormal KS D", "lognormal_ks_statistic", None, number),
            ("Zipf a", "zipf_a", None, number),
            ("Zipf KS D", "zipf_ks_statistic", None, number),
            ("better", "better_fit", None, str),
            ("rows", "data_origin", None, str),
        ),
    ),
)


def fits_section(fits: Mapping[str, pd.DataFrame]) -> str:
    parts = [
        "## Fitted arrival and token-length models",
        "BurstGPT's requests per model and log type, fitted in the warehouse (docs/pages/exports-and-fits.md, "
        "Arrival and length fits: the estimators, the 1-s clock, and how a row becomes vLLM's `--request-rate` and "
        "`--burstiness`). A *synthetic* or *mixed* row describes generated requests, not BurstGPT.",
    ]
    for key, title, columns in FITS_TABLES:
        df = fits.get(key)
        body = (
            "No rows (the fits are not built, or no group has enough requests)."
            if df is None or df.empty
            else table(df, columns)
        )
        parts.append(f"### {title}\n\n{body}")
    return "\n\n".join(parts)


def report_markdown(
    *,
    origins: pd.DataFrame,
    comparisons: Mapping[str, pd.DataFrame],
    figures: Sequence[tuple[str, str]],
    start_date: date | None,
    generated_at: datetime,
    fits: Mapping[str, pd.DataFrame] | None = None,
) -> str:
    """The whole page."""
    day0 = (
        f"BurstGPT day 0 = {start_date.isoformat()} (BURSTGPT_START_DATE)"
        if start_date
        else "BurstGPT times are trace days (day N) and relative weekdays: the calendar date of day 0 is "
        "unpublished (set BURSTGPT_START_DATE to date them)"
    )
    header = (
        "# LLM-cluster trace warehouse — report\n\n"
        f"{banner(origin_totals(origins))}\n\n"
        f"Generated {generated_at:%Y-%m-%d %H:%M} UTC from `trace.duckdb` (the analysis marts). {day0}."
    )
    sections = [header, origin_section(origins), figures_section(figures), comparison_section(comparisons)]
    sections.append(notebook_section(Path(file_name).stem for file_name, _ in figures))
    if fits is not None:
        sections.append(fits_section(fits))
    return "\n\n".join(sections) + "\n"
