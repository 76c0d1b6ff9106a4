"""The drawing rules every report figure shares (``figures``, ``notebook_figures``): the style, the plot area
above the origin footer, the PNG, the "no data" figure, stable colours, and the stacked-shares figure.

matplotlib's object API on the Agg canvas — no pyplot, no global backend switch, nothing shared between
Dagster's worker processes or threads — and matplotlib is imported inside the functions, so loading the
Dagster definitions never imports it. Each figure carries, as a footer, how many of the rows behind it are
real and how many synthetic.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from pipelines.report.origin import RowOrigin

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import FigureBase

WIDTH_IN = 6.4
HEIGHT_IN = 3.6
DPI = 100

# Stable colours: a cluster, state or file has the same colour in every figure.
CLUSTER_ORDER = ("seren", "kalos", "philly", "helios", "pai")
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
STATE_COLORS = {"completed": "#4c9a5b", "cancelled": "#e0a040", "failed": "#c8453c", "other": "#9a9a9a"}
TYPE_COLORS = {
    "Pretrain": "#1f77b4", "SFT": "#2ca02c", "MLLM": "#17becf", "Eval": "#ff7f0e", "Debug": "#9467bd",
    "Other": "#8c564b", "unknown": "#c7c7c7",
}  # fmt: skip
DURATION_TICKS = ((1, "1 s"), (60, "1 min"), (3600, "1 h"), (86_400, "1 d"), (604_800, "1 wk"))
SYNTHETIC_COLOR = "#b00020"

NO_GPU_JOBS = "no GPU jobs in the warehouse"
NO_REQUESTS = "no BurstGPT requests loaded"


# The figure ------------------------------------------------------------------------------------------------


@contextmanager
def figure_style() -> Iterator[None]:
    import matplotlib

    with matplotlib.rc_context(
        {
            "font.size": 8,
            "axes.titlesize": 9,
            "axes.labelsize": 8,
            "legend.fontsize": 7,
            "xtick.labelsize": 7,
            "ytick.labelsize": 7,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "grid.linewidth": 0.5,
        }
    ):
        yield


def new_figure(
    title: str,
    ncols: int = 1,
    *,
    nrows: int = 1,
    sharey: bool = False,
    width_ratios: Sequence[float] | None = None,
) -> tuple[FigureBase, list[Axes]]:
    """The plot area (a subfigure with the title, axes and legends) above a strip for the origin footer; the
    axes row by row. More rows make the figure taller."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    height = HEIGHT_IN * (1 + 0.6 * (nrows - 1))
    fig = Figure(figsize=(WIDTH_IN * (1.4 if nrows > 1 else 1), height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    plot, _footer = fig.subfigures(2, 1, height_ratios=(1, 0.055 / (1 + 0.6 * (nrows - 1))))
    plot.suptitle(title, fontsize=10, fontweight="bold")
    axes = plot.subplots(nrows, ncols, sharey=sharey, squeeze=False, width_ratios=width_ratios)
    return plot, list(axes.flat)


def render_png(plot: FigureBase, origin: RowOrigin | None) -> bytes:
    """The figure of ``plot`` (from :func:`new_figure`) as PNG, with ``origin`` as its footer."""
    fig = plot.figure
    if origin is not None:
        footer = fig.subfigs[1]
        footer.text(
            0.01,
            0.5,
            origin.caption(),
            fontsize=6.5,
            ha="left",
            va="center",
            color=SYNTHETIC_COLOR if origin.has_synthetic else "#444444",
            fontweight="bold" if origin.has_synthetic else "normal",
        )
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


# "No data" -------------------------------------------------------------------------------------------------


def why_empty(df: pd.DataFrame, reason: str) -> str:
    """``reason``, unless the relation was never built (``queries.fetch`` notes that on the frame)."""
    missing = df.attrs.get("missing")
    return f"not built yet: {missing}" if missing else reason


def no_rows(df: pd.DataFrame, title: str, mart: str, why: str, origin: RowOrigin | None) -> bytes:
    """The "no data" figure for an empty frame of ``analysis.<mart>`` (``why`` it has no rows)."""
    return no_data(title, why_empty(df, f"analysis.{mart} has no rows: {why}"), origin)


def no_data(title: str, reason: str, origin: RowOrigin | None = None) -> bytes:
    """A figure that says there is nothing to draw, and why."""
    with figure_style():
        fig, (ax,) = new_figure(title)
        ax.set_axis_off()
        ax.text(0.5, 0.58, "no data", ha="center", va="center", fontsize=20, color="#888888")
        ax.text(0.5, 0.38, reason, ha="center", va="center", fontsize=8, color="#555555", wrap=True)
        return render_png(fig, origin)


# Order, colours, labels, values ----------------------------------------------------------------------------


def ordered(values: Iterable[str], preferred: Sequence[str] = CLUSTER_ORDER) -> list[str]:
    """The distinct ``values``: those in ``preferred`` in its order, then the others sorted."""
    present = {str(v) for v in values}
    return [v for v in preferred if v in present] + sorted(present - set(preferred))


def color_map(names: Sequence[str], fixed: dict[str, str] | None = None) -> dict[str, str]:
    """A colour per name: its ``fixed`` one, else the next palette colour no fixed name has."""
    fixed = fixed or {}
    spare = iter(c for c in PALETTE if c not in fixed.values())
    return {n: fixed.get(n) or next(spare, "#555555") for n in names}


def cluster_colors(df: pd.DataFrame) -> tuple[list[str], dict[str, str]]:
    """The frame's clusters in the usual order, and their colours."""
    clusters = ordered(df["cluster_name"])
    return clusters, color_map(clusters, {c: PALETTE[i] for i, c in enumerate(CLUSTER_ORDER)})


def file_colors(df: pd.DataFrame) -> dict[int, str]:
    """A colour per BurstGPT file number of the frame."""
    return {int(n): PALETTE[(int(n) - 1) % len(PALETTE)] for n in sorted(df["file_number"].unique())}


def file_label(file_number: object, release: object) -> str:
    return f"BurstGPT_{int(file_number)} ({release})"  # type: ignore[call-overload]


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def as_number(value: object) -> float:
    """A float, with NULL/NaN as 0 (shares of a cluster without GPU time)."""
    if value is None:
        return 0.0
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if math.isnan(number) else number


def is_present(value: object) -> bool:
    """Not NULL, not NaN."""
    try:
        return value is not None and not math.isnan(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


# Stacked shares (states, types) ----------------------------------------------------------------------------


def stacked_shares(
    df: pd.DataFrame, origin: RowOrigin | None, *, title: str, mart: str, category: str, fixed: dict[str, str]
) -> bytes:
    """Shares of ``category`` per cluster by count and by GPU time (colours ``fixed`` first, in their order),
    a hatched bar below each cluster that has published shares."""
    if df.empty:
        return no_rows(df, title, mart, NO_GPU_JOBS, origin)
    categories = ordered(df[category], tuple(fixed))
    colors = color_map(categories, fixed)
    panels = (
        ("share_by_count", "published_share_by_count", "Share of GPU jobs"),
        ("share_by_reported_gpu_time", "published_share_by_gpu_time", "Share of GPU time (reported)"),
    )
    clusters = ordered(df["cluster_name"])
    rows: list[tuple[str, str, bool]] = []  # (label, cluster, published?)
    for cluster in clusters:
        sub = df[df["cluster_name"] == cluster]
        rows.append((cluster, cluster, False))
        if any(sub[pub].map(is_present).any() for _, pub, _ in panels):
            rows.append(("published", cluster, True))
    with figure_style():
        fig, axes = new_figure(title, 2, sharey=True)
        for ax, (share, pub, label) in zip(axes, panels, strict=True):
            for y, (_, cluster, published) in enumerate(rows):
                sub = df[df["cluster_name"] == cluster].set_index(category)
                left = 0.0
                for cat in categories:
                    if cat not in sub.index:
                        continue
                    width = as_number(sub.at[cat, pub if published else share])
                    if width <= 0:
                        continue
                    ax.barh(
                        y,
                        width,
                        left=left,
                        height=0.55 if published else 0.8,
                        color=colors[cat],
                        alpha=0.55 if published else 1.0,
                        hatch="////" if published else None,
                        edgecolor="white",
                        linewidth=0.5,
                    )
                    left += width
            ax.set_xlim(0, 1)
            ax.set_xlabel(label)
            ax.grid(axis="y", visible=False)
        axes[0].set_yticks(range(len(rows)), [r[0] for r in rows])
        axes[0].invert_yaxis()
        for tick, (_, _, published) in zip(axes[0].get_yticklabels(), rows, strict=True):
            if published:
                tick.set_fontstyle("italic")
                tick.set_color("#666666")
        _category_legend(fig, categories, colors)
        return render_png(fig, origin)


def _category_legend(fig: FigureBase, categories: Sequence[str], colors: dict[str, str]) -> None:
    from matplotlib.patches import Patch

    handles = [Patch(color=colors[c], label=c) for c in categories]
    handles.append(Patch(facecolor="white", edgecolor="#666666", hatch="////", label="published"))
    fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 8), frameon=False)
