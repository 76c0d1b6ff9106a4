"""One function per report figure: a frame from the analysis marts (the query in ``queries``) in, PNG out.

Drawn with matplotlib's object API on the Agg canvas — no pyplot, no global backend switch, nothing shared
between Dagster's worker processes or threads — and matplotlib is imported inside the functions, so loading
the Dagster definitions never imports it. An empty frame draws a "no data" figure instead of failing.
Each figure carries, as a footer, how many of the rows behind it are real and how many synthetic.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
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
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
SYNTHETIC_COLOR = "#b00020"
# The upstream notebook's order of the utilization CDFs: GPU (DCGM) metrics, then node (Prometheus) ones.
UTILIZATION_ORDER = (
    "GPU_UTIL", "SM_ACTIVE", "SM_OCCUPANCY", "PIPE_TENSOR_ACTIVE", "DRAM_ACTIVE", "MEM_COPY_UTIL", "FB_USED",
    "FB_FREE", "GPU_TEMP", "MEMORY_TEMP", "POWER_USAGE", "SM_CLOCK", "MEM_CLOCK", "NODE_CPU_UTILIZATION",
    "NODE_MEMORY_UTILIZATION", "NODE_IB_SEND", "NODE_IB_RECEIVE",
)  # fmt: skip


# Shared drawing --------------------------------------------------------------------------------------------


@contextmanager
def _style() -> Iterator[None]:
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


def _figure(
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


def _png(plot: FigureBase, origin: RowOrigin | None) -> bytes:
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


def _why_empty(df: pd.DataFrame, reason: str) -> str:
    """``reason``, unless the relation was never built (``queries.fetch`` notes that on the frame)."""
    missing = df.attrs.get("missing")
    return f"not built yet: {missing}" if missing else reason


NO_GPU_JOBS = "no GPU jobs in the warehouse"
NO_REQUESTS = "no BurstGPT requests loaded"


def _no_rows(df: pd.DataFrame, title: str, mart: str, why: str, origin: RowOrigin | None) -> bytes:
    """The "no data" figure for an empty frame of ``analysis.<mart>`` (``why`` it has no rows)."""
    return no_data(title, _why_empty(df, f"analysis.{mart} has no rows: {why}"), origin)


def no_data(title: str, reason: str, origin: RowOrigin | None = None) -> bytes:
    """A figure that says there is nothing to draw, and why."""
    with _style():
        fig, (ax,) = _figure(title)
        ax.set_axis_off()
        ax.text(0.5, 0.58, "no data", ha="center", va="center", fontsize=20, color="#888888")
        ax.text(0.5, 0.38, reason, ha="center", va="center", fontsize=8, color="#555555", wrap=True)
        return _png(fig, origin)


def _ordered(values: Iterable[str], preferred: Sequence[str] = CLUSTER_ORDER) -> list[str]:
    present = {str(v) for v in values}
    return [v for v in preferred if v in present] + sorted(present - set(preferred))


def _colors(names: Sequence[str], fixed: dict[str, str] | None = None) -> dict[str, str]:
    fixed = fixed or {}
    spare = iter(c for c in PALETTE if c not in fixed.values())
    return {n: fixed.get(n) or next(spare, "#555555") for n in names}


def _clusters(df: pd.DataFrame) -> tuple[list[str], dict[str, str]]:
    """The frame's clusters in the usual order, and their colours."""
    clusters = _ordered(df["cluster_name"])
    return clusters, _colors(clusters, {c: PALETTE[i] for i, c in enumerate(CLUSTER_ORDER)})


def _file_label(file_number: object, release: object) -> str:
    return f"BurstGPT_{int(file_number)} ({release})"  # type: ignore[call-overload]


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _number(value: object) -> float:
    """A float, with NULL/NaN as 0 (shares of a cluster without GPU time)."""
    if value is None:
        return 0.0
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if math.isnan(number) else number


def _present(value: object) -> bool:
    try:
        return value is not None and not math.isnan(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


# Stacked shares (states, types) ----------------------------------------------------------------------------


def _stacked_shares(
    df: pd.DataFrame, origin: RowOrigin | None, *, title: str, mart: str, category: str, fixed: dict[str, str]
) -> bytes:
    """Shares of ``category`` per cluster by count and by GPU time (colours ``fixed`` first, in their order),
    a hatched bar below each cluster that has published shares."""
    if df.empty:
        return _no_rows(df, title, mart, NO_GPU_JOBS, origin)
    categories = _ordered(df[category], tuple(fixed))
    colors = _colors(categories, fixed)
    panels = (
        ("share_by_count", "published_share_by_count", "Share of GPU jobs"),
        ("share_by_reported_gpu_time", "published_share_by_gpu_time", "Share of GPU time (reported)"),
    )
    clusters = _ordered(df["cluster_name"])
    rows: list[tuple[str, str, bool]] = []  # (label, cluster, published?)
    for cluster in clusters:
        sub = df[df["cluster_name"] == cluster]
        rows.append((cluster, cluster, False))
        if any(sub[pub].map(_present).any() for _, pub, _ in panels):
            rows.append(("published", cluster, True))
    with _style():
        fig, axes = _figure(title, 2, sharey=True)
        for ax, (share, pub, label) in zip(axes, panels, strict=True):
            for y, (_, cluster, published) in enumerate(rows):
                sub = df[df["cluster_name"] == cluster].set_index(category)
                left = 0.0
                for cat in categories:
                    if cat not in sub.index:
                        continue
                    width = _number(sub.at[cat, pub if published else share])
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
        return _png(fig, origin)


def _category_legend(fig: FigureBase, categories: Sequence[str], colors: dict[str, str]) -> None:
    from matplotlib.patches import Patch

    handles = [Patch(color=colors[c], label=c) for c in categories]
    handles.append(Patch(facecolor="white", edgecolor="#666666", hatch="////", label="published"))
    fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 8), frameon=False)


def job_state_shares(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """Final state of GPU jobs per cluster, by count and by GPU time; published rows hatched."""
    title = "Final state of GPU jobs per cluster"
    return _stacked_shares(
        df, origin, title=title, mart="job_state_shares", category="state_group", fixed=STATE_COLORS
    )


def job_type_shares(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """Job types of GPU jobs per cluster, by count and by GPU time; the paper's values hatched."""
    title = "Job types of GPU jobs per cluster"
    return _stacked_shares(
        df, origin, title=title, mart="job_type_shares", category="job_type", fixed=TYPE_COLORS
    )


# CDFs ------------------------------------------------------------------------------------------------------


def job_duration_cdf(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """CDF of GPU-job duration and queueing delay per cluster, log x (the upstream notebook's 2**i grid)."""
    from matplotlib.lines import Line2D

    title = "GPU-job duration and queueing delay (CDF)"
    if df.empty:
        return _no_rows(df, title, "job_duration_cdf", NO_GPU_JOBS, origin)
    clusters, colors = _clusters(df)
    panels = (("run_s", "Duration (end − start)"), ("queue_s", "Queueing delay (start − submit)"))
    with _style():
        fig, axes = _figure(title, 2, sharey=True)
        for ax, (measure, label) in zip(axes, panels, strict=True):
            drawn = False
            for cluster in clusters:
                sub = df[(df["cluster_name"] == cluster) & (df["measure"] == measure)]
                if sub.empty:
                    continue
                n = int(sub["gpu_jobs"].iloc[0])
                ax.plot(sub["threshold_s"], sub["cumulative_share"], color=colors[cluster], lw=1.4)
                drawn = True
                if measure == "run_s":
                    rep = df[(df["cluster_name"] == cluster) & (df["measure"] == "reported_duration_s")]
                    if not rep.empty and list(rep["cumulative_share"]) != list(sub["cumulative_share"]):
                        ax.plot(
                            rep["threshold_s"],
                            rep["cumulative_share"],
                            color=colors[cluster],
                            lw=0.9,
                            ls="--",
                        )
                ax.plot([], [], color=colors[cluster], label=f"{cluster} (n={n:,})")
            if not drawn:
                ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", color="#888888")
            ax.set_xscale("log")
            ax.set_xlim(1, 2**21)
            ax.set_xticks([t for t, _ in DURATION_TICKS], [lab for _, lab in DURATION_TICKS])
            ax.minorticks_off()
            ax.set_ylim(0, 1.02)
            ax.set_xlabel(label)
        axes[0].set_ylabel("Share of GPU jobs ≤ x")
        handles, labels = axes[0].get_legend_handles_labels()
        handles.append(Line2D([], [], color="#555555", lw=0.9, ls="--"))
        labels.append("file's reported duration")
        axes[0].legend(handles, labels, loc="lower right")
        return _png(fig, origin)


def gpu_num_cdf(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """CDF of GPUs requested per GPU job, weighted by jobs and by GPU time, log2 x."""
    title = "GPUs per GPU job (CDF)"
    if df.empty:
        return _no_rows(df, title, "gpu_num_cdf", NO_GPU_JOBS, origin)
    clusters, colors = _clusters(df)
    full = df[(df["share_of_jobs"] >= 1.0) & (df["gpu_num_at_most"] >= 1)].groupby("cluster_name")
    reach = int(full["gpu_num_at_most"].min().max()) if len(full) else 1024
    x_max = 2 ** min(11, max(3, math.ceil(math.log2(max(reach, 1))) + 1))
    panels = (("share_of_jobs", "weighted by jobs"), ("share_of_gpu_time", "weighted by GPU time (reported)"))
    with _style():
        fig, axes = _figure(title, 2, sharey=True)
        for ax, (column, label) in zip(axes, panels, strict=True):
            for cluster in clusters:
                sub = df[(df["cluster_name"] == cluster) & (df["gpu_num_at_most"] >= 1)]
                ax.step(
                    sub["gpu_num_at_most"],
                    sub[column].fillna(0.0),
                    where="post",
                    color=colors[cluster],
                    lw=1.4,
                    label=cluster,
                )
            ax.set_xscale("log", base=2)
            ax.set_xlim(1, x_max)  # one doubling past the last step, so a rise at x = 1024 shows
            powers = range(int(math.log2(x_max)) + 1)
            step = 1 if len(powers) <= 8 else 2  # label every other doubling when they would crowd
            ax.set_xticks([2**i for i in powers[::step]], [str(2**i) for i in powers[::step]])
            ax.set_xticks([2**i for i in powers], minor=True)
            ax.tick_params(axis="x", which="minor", labelbottom=False)
            ax.set_ylim(0, 1.02)
            ax.set_xlabel(f"GPUs requested, {label}")
        axes[0].set_ylabel("Cumulative share ≤ x")
        axes[0].legend(loc="lower right")
        return _png(fig, origin)


def gpu_utilization_cdf(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """CDF of GPU_UTIL (solid) and SM_ACTIVE (dashed) per cluster at 1 % steps; published points as stars."""
    from matplotlib.lines import Line2D

    title = "GPU utilization per cluster (CDF)"
    if df.empty:
        return no_data(
            title, _why_empty(df, "marts.fct_node_metric has no GPU_UTIL / SM_ACTIVE samples"), origin
        )
    _, colors = _clusters(df)
    styles = {"GPU_UTIL": "-", "SM_ACTIVE": "--"}
    with _style():
        fig, (ax,) = _figure(title)
        for (cluster, metric), sub in df.groupby(["cluster_name", "metric"], sort=False):
            first = sub.iloc[0]
            gpus = f", {int(first['gpus'])} GPUs" if _present(first["gpus"]) else ""
            ax.step(
                sub["value_at_most"],
                sub["cumulative_share"],
                where="post",
                color=colors[str(cluster)],
                ls=styles.get(str(metric), ":"),
                lw=1.4,
                label=f"{cluster} {metric} ({int(first['samples']):,} samples{gpus})",
            )
            stars = [(_number(first["published_median"]), 0.5)] if _present(first["published_median"]) else []
            if _present(first["published_share_at_zero"]):
                stars.append((0.0, _number(first["published_share_at_zero"])))
            for x, y in stars:
                ax.plot(
                    [x], [y], marker="*", ms=10, color=colors[str(cluster)], mec="black", mew=0.6, ls="none"
                )
        ax.set_xlim(0, max(100.0, float(df["value_at_most"].max())))
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("Utilization (%)")
        ax.set_ylabel("Share of samples ≤ x")
        handles, labels = ax.get_legend_handles_labels()
        handles.append(Line2D([], [], marker="*", ms=9, color="#aaaaaa", mec="black", mew=0.6, ls="none"))
        labels.append("published (median; share at 0)")
        ax.legend(handles, labels, loc="best")
        return _png(fig, origin)


def utilization_cdf(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """One panel per utilization metric (the notebook's CDFs, in its order), a line per cluster, on the metric's
    grid; each line starts at 0 on its first bin's lower edge, so a metric with one value is a visible step."""
    from matplotlib.lines import Line2D

    title = "Utilization metrics per cluster (CDF)"
    if df.empty:
        return _no_rows(df, title, "utilization_cdf", "no utilization samples loaded", origin)
    clusters, colors = _clusters(df)
    metrics = _ordered(df["metric"], UTILIZATION_ORDER)
    ncols = min(4, len(metrics))
    nrows = -(-len(metrics) // ncols)
    with _style():
        fig, axes = _figure(title, ncols, nrows=nrows, sharey=True)
        for ax, metric in zip(axes, metrics, strict=False):
            sub = df[df["metric"] == metric]
            for cluster, line in sub.groupby("cluster_name", sort=False):
                xs = [line["value_from"].iloc[0], *line["value_at_most"]]
                ys = [0.0, *line["cumulative_share"]]
                ax.step(xs, ys, where="post", lw=1.2, color=colors[str(cluster)])
            if sub["grid_kind"].iloc[0] == "log2":
                ax.set_xscale("log", base=2)
            ax.set_title(metric, fontsize=7)
            ax.set_xlabel(str(sub["plotted_unit"].iloc[0]), fontsize=6)
            ax.tick_params(labelsize=6)
            ax.set_ylim(0, 1.02)
        for ax in axes[len(metrics) :]:
            ax.set_axis_off()
        handles = [Line2D([], [], color=colors[c], lw=1.4) for c in clusters]
        fig.legend(handles, clusters, loc="outside upper right", fontsize=7, ncols=len(clusters))
        return _png(fig, origin)


# BurstGPT --------------------------------------------------------------------------------------------------


def _file_colors(df: pd.DataFrame) -> dict[int, str]:
    return {int(n): PALETTE[(int(n) - 1) % len(PALETTE)] for n in sorted(df["file_number"].unique())}


def requests_per_hour(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """Requests per hour over the trace (day N, or UTC when BurstGPT's day 0 is set) and by hour of day."""
    title = "BurstGPT requests per hour"
    if df.empty:
        return _no_rows(df, title, "requests_per_hour", NO_REQUESTS, origin)
    calendar = bool(df["hour_start_utc"].notna().all())
    colors = _file_colors(df)
    with _style():
        fig, (over_time, by_hour) = _figure(title, 2, width_ratios=(2.2, 1))
        for (number, release), sub in df.groupby(["file_number", "release"], sort=True):
            color = colors[int(number)]
            x = sub["hour_start_utc"] if calendar else sub["hour_index"] / 24
            marker = "o" if len(sub) <= 48 else None  # a short file (a few hours) is a few dots
            over_time.plot(
                x,
                sub["requests"],
                color=color,
                lw=0.8,
                marker=marker,
                ms=2,
                label=_file_label(number, release),
            )
            profile = sub.groupby("hour_of_day")["requests"].mean()
            by_hour.plot(profile.index, profile.values, color=color, lw=1.4, marker="o", ms=2)
        if calendar:
            from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

            locator = AutoDateLocator(maxticks=6)
            over_time.xaxis.set_major_locator(locator)
            over_time.xaxis.set_major_formatter(ConciseDateFormatter(locator))
            over_time.set_xlabel("Hour (UTC)")
        else:
            over_time.set_xlabel("Trace day N (calendar date of day 0 unpublished)")
        over_time.set_ylabel("Requests per hour")
        over_time.set_ylim(bottom=0)
        over_time.legend(loc="upper right")
        by_hour.set_xlim(0, 23)
        by_hour.set_xticks([0, 6, 12, 18, 23])
        by_hour.set_ylim(bottom=0)
        by_hour.set_xlabel("Hour of day (trace clock)")
        by_hour.set_ylabel("Mean requests per hour")
        return _png(fig, origin)


def requests_per_weekday(
    df: pd.DataFrame, origin: RowOrigin | None = None, start_date: date | None = None
) -> bytes:
    """Mean requests per observed day by weekday: relative (day N mod 7) unless BurstGPT's day 0 is set."""
    title = "BurstGPT requests by weekday"
    if df.empty:
        return _no_rows(df, title, "requests_per_weekday", NO_REQUESTS, origin)
    colors = _file_colors(df)
    files = list(df.groupby(["file_number", "release"], sort=True))
    width = 0.8 / len(files)
    with _style():
        fig, (ax,) = _figure(title)
        for i, ((number, release), sub) in enumerate(files):
            offsets = sub["relative_weekday"].astype(float) - 0.4 + width * (i + 0.5)
            ax.bar(
                offsets,
                sub["mean_requests_per_day"],
                width=width,
                color=colors[int(number)],
                label=f"{_file_label(number, release)}, {_plural(int(sub['days_observed'].sum()), 'day')}",
            )
        if start_date is None:
            labels = [str(r) for r in range(7)]
            ax.set_xlabel("Relative weekday = trace day N mod 7 (the weekday of day 0 is unpublished)")
        else:
            labels = [WEEKDAYS[(start_date.weekday() + r) % 7] for r in range(7)]
            ax.set_xlabel(f"Weekday (day 0 = {start_date.isoformat()}, BURSTGPT_START_DATE)")
        ax.set_xticks(range(7), labels)
        ax.grid(axis="x", visible=False)
        ax.set_ylabel("Mean requests per observed day")
        ax.set_ylim(0, float(df["mean_requests_per_day"].max()) * 1.25)  # headroom for the legend
        ax.legend(loc="upper center", ncols=len(files))
        return _png(fig, origin)


def token_distribution(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """Request and response tokens per model, log type and file: p50–p99 range, p90, mean and max."""
    title = "Tokens per request by model (not-failed requests)"
    if df.empty:
        return _no_rows(df, title, "token_distribution", NO_REQUESTS, origin)
    models = _ordered(df["model_name"], ("ChatGPT", "GPT-4"))
    colors = _colors(models, {"ChatGPT": "#10a37f", "GPT-4": "#6e44ff"})
    rows = df.sort_values(["model_name", "log_type", "file_number"]).reset_index(drop=True)
    labels = [
        f"{r.model_name} · {str(r.log_type).replace(' log', '')} · f{int(r.file_number)} "
        f"(n={int(r.not_failed_requests):,})"
        for r in rows.itertuples()
    ]
    with _style():
        fig, axes = _figure(title, 2, sharey=True)
        for ax, side in zip(axes, ("request", "response"), strict=True):
            for y, r in rows.iterrows():
                color = colors[str(r["model_name"])]
                if not _present(r[f"{side}_tokens_p50"]):
                    ax.text(1.2, y, "all failed", va="center", fontsize=6, color="#888888")
                    continue
                # log x: a value below one token is drawn at 1
                p50, p90, p99, mean, top = (
                    max(_number(r[f"{side}_tokens_{s}"]), 1.0) for s in ("p50", "p90", "p99", "mean", "max")
                )
                ax.plot([p50, p99], [y, y], color=color, lw=3, alpha=0.45, solid_capstyle="butt")
                ax.plot([p50], [y], marker="o", ms=4, color=color, ls="none")
                ax.plot([p90], [y], marker="|", ms=8, mew=1.5, color=color, ls="none")
                ax.plot([mean], [y], marker="D", ms=3, color="black", ls="none")
                ax.plot([top], [y], marker="x", ms=4, color=color, ls="none")
            ax.set_xscale("log")
            ax.set_xlim(1, None)
            ax.set_xlabel(f"{side.capitalize()} tokens")
            ax.grid(axis="y", visible=False)
        axes[0].set_yticks(range(len(labels)), labels)
        axes[0].invert_yaxis()
        _token_legend(fig)
        return _png(fig, origin)


def _token_legend(fig: FigureBase) -> None:
    from matplotlib.lines import Line2D

    grey = "#555555"
    handles = [
        Line2D([], [], color=grey, lw=3, alpha=0.45, label="p50–p99"),
        Line2D([], [], color=grey, marker="o", ms=4, ls="none", label="median"),
        Line2D([], [], color=grey, marker="|", ms=8, mew=1.5, ls="none", label="p90"),
        Line2D([], [], color="black", marker="D", ms=3, ls="none", label="mean"),
        Line2D([], [], color=grey, marker="x", ms=4, ls="none", label="max"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False)
