"""One function per report figure: a frame from the analysis marts (the query in ``queries``) in, PNG out.

Drawn by the rules of ``plotting`` (matplotlib's object API on Agg, imported inside the functions, the origin
footer). An empty frame draws a "no data" figure instead of failing. Each figure carries, as a footer, how many
of the rows behind it are real and how many synthetic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import date
from typing import TYPE_CHECKING, TypeVar

from pipelines.report.origin import RowOrigin
from pipelines.report.plotting import (
    DURATION_TICKS,
    NO_GPU_JOBS,
    NO_REQUESTS,
    STATE_COLORS,
    TYPE_COLORS,
    as_number,
    cluster_colors,
    color_map,
    figure_style,
    file_colors,
    file_label,
    is_present,
    new_figure,
    no_data,
    no_rows,
    ordered,
    plural,
    render_png,
    stacked_shares,
    why_empty,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import FigureBase

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
# The upstream notebook's order of the utilization CDFs: GPU (DCGM) metrics, then node (Prometheus) ones.
UTILIZATION_ORDER = (
    "GPU_UTIL", "SM_ACTIVE", "SM_OCCUPANCY", "PIPE_TENSOR_ACTIVE", "DRAM_ACTIVE", "MEM_COPY_UTIL", "FB_USED",
    "FB_FREE", "GPU_TEMP", "MEMORY_TEMP", "POWER_USAGE", "SM_CLOCK", "MEM_CLOCK", "NODE_CPU_UTILIZATION",
    "NODE_MEMORY_UTILIZATION", "NODE_IB_SEND", "NODE_IB_RECEIVE",
)  # fmt: skip


# Stacked shares (states, types) ----------------------------------------------------------------------------


def job_state_shares(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """Final state of GPU jobs per cluster, by count and by GPU time; published rows hatched."""
    title = "Final state of GPU jobs per cluster"
    return stacked_shares(
        df, origin, title=title, mart="job_state_shares", category="state_group", fixed=STATE_COLORS
    )


def job_type_shares(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """Job types of GPU jobs per cluster, by count and by GPU time; the paper's values hatched."""
    title = "Job types of GPU jobs per cluster"
    return stacked_shares(
        df, origin, title=title, mart="job_type_shares", category="job_type", fixed=TYPE_COLORS
    )


# CDFs ------------------------------------------------------------------------------------------------------


Panel = TypeVar("Panel")


def _cluster_panels(
    df: pd.DataFrame,
    origin: RowOrigin | None,
    title: str,
    panels: Sequence[Panel],
    draw: Callable[[Axes, Panel, list[str], dict[str, str]], None],
    legend: Callable[[FigureBase, list[Axes], list[str], dict[str, str]], None],
    *,
    ylabel: str | None = None,
    ncols: int = 2,
    nrows: int = 1,
) -> bytes:
    """The per-cluster CDFs: ``ncols`` x ``nrows`` panels sharing the y axis (0 to 1), one per item of
    ``panels``, spare ones hidden. ``draw(ax, panel, clusters, colors)`` draws a panel's lines (the frame's
    clusters in the usual order, a colour each) and its x axis; ``legend(fig, axes, clusters, colors)`` the
    legend."""
    clusters, colors = cluster_colors(df)
    with figure_style():
        fig, axes = new_figure(title, ncols, nrows=nrows, sharey=True)
        for ax, panel in zip(axes, panels, strict=False):
            draw(ax, panel, clusters, colors)
            ax.set_ylim(0, 1.02)
        for ax in axes[len(panels) :]:
            ax.set_axis_off()
        if ylabel is not None:
            axes[0].set_ylabel(ylabel)
        legend(fig, axes, clusters, colors)
        return render_png(fig, origin)


def job_duration_cdf(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """CDF of GPU-job duration and queueing delay per cluster, log x (the upstream notebook's 2**i grid)."""
    from matplotlib.lines import Line2D

    title = "GPU-job duration and queueing delay (CDF)"
    if df.empty:
        return no_rows(df, title, "job_duration_cdf", NO_GPU_JOBS, origin)

    def draw(ax: Axes, panel: tuple[str, str], clusters: list[str], colors: dict[str, str]) -> None:
        measure, label = panel
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
                        rep["threshold_s"], rep["cumulative_share"], color=colors[cluster], lw=0.9, ls="--"
                    )
            ax.plot([], [], color=colors[cluster], label=f"{cluster} (n={n:,})")
        if not drawn:
            ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", color="#888888")
        ax.set_xscale("log")
        ax.set_xlim(1, 2**21)
        ax.set_xticks([t for t, _ in DURATION_TICKS], [lab for _, lab in DURATION_TICKS])
        ax.minorticks_off()
        ax.set_xlabel(label)

    def legend(fig: FigureBase, axes: list[Axes], clusters: list[str], colors: dict[str, str]) -> None:
        handles, labels = axes[0].get_legend_handles_labels()
        handles.append(Line2D([], [], color="#555555", lw=0.9, ls="--"))
        labels.append("file's reported duration")
        axes[0].legend(handles, labels, loc="lower right")

    panels = (("run_s", "Duration (end − start)"), ("queue_s", "Queueing delay (start − submit)"))
    return _cluster_panels(df, origin, title, panels, draw, legend, ylabel="Share of GPU jobs ≤ x")


def gpu_num_cdf(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """CDF of GPUs requested per GPU job, weighted by jobs and by GPU time, log2 x."""
    title = "GPUs per GPU job (CDF)"
    if df.empty:
        return no_rows(df, title, "gpu_num_cdf", NO_GPU_JOBS, origin)
    full = df[(df["share_of_jobs"] >= 1.0) & (df["gpu_num_at_most"] >= 1)].groupby("cluster_name")
    reach = int(full["gpu_num_at_most"].min().max()) if len(full) else 1024
    x_max = 2 ** min(11, max(3, math.ceil(math.log2(max(reach, 1))) + 1))

    def draw(ax: Axes, panel: tuple[str, str], clusters: list[str], colors: dict[str, str]) -> None:
        column, label = panel
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
        ax.set_xlabel(f"GPUs requested, {label}")

    def legend(fig: FigureBase, axes: list[Axes], clusters: list[str], colors: dict[str, str]) -> None:
        axes[0].legend(loc="lower right")

    panels = (("share_of_jobs", "weighted by jobs"), ("share_of_gpu_time", "weighted by GPU time (reported)"))
    return _cluster_panels(df, origin, title, panels, draw, legend, ylabel="Cumulative share ≤ x")


def gpu_utilization_cdf(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """CDF of GPU_UTIL (solid) and SM_ACTIVE (dashed) per cluster at 1 % steps; published points as stars."""
    from matplotlib.lines import Line2D

    title = "GPU utilization per cluster (CDF)"
    if df.empty:
        return no_data(
            title, why_empty(df, "marts.fct_node_metric has no GPU_UTIL / SM_ACTIVE samples"), origin
        )
    _, colors = cluster_colors(df)
    styles = {"GPU_UTIL": "-", "SM_ACTIVE": "--"}
    with figure_style():
        fig, (ax,) = new_figure(title)
        for (cluster, metric), sub in df.groupby(["cluster_name", "metric"], sort=False):
            first = sub.iloc[0]
            gpus = f", {int(first['gpus'])} GPUs" if is_present(first["gpus"]) else ""
            ax.step(
                sub["value_at_most"],
                sub["cumulative_share"],
                where="post",
                color=colors[str(cluster)],
                ls=styles.get(str(metric), ":"),
                lw=1.4,
                label=f"{cluster} {metric} ({int(first['samples']):,} samples{gpus})",
            )
            stars = (
                [(as_number(first["published_median"]), 0.5)] if is_present(first["published_median"]) else []
            )
            if is_present(first["published_share_at_zero"]):
                stars.append((0.0, as_number(first["published_share_at_zero"])))
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
        return render_png(fig, origin)


def utilization_cdf(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """One panel per utilization metric (the notebook's CDFs, in its order), a line per cluster, on the metric's
    grid; each line starts at 0 on its first bin's lower edge, so a metric with one value is a visible step."""
    from matplotlib.lines import Line2D

    title = "Utilization metrics per cluster (CDF)"
    if df.empty:
        return no_rows(df, title, "utilization_cdf", "no utilization samples loaded", origin)
    metrics = ordered(df["metric"], UTILIZATION_ORDER)
    ncols = min(4, len(metrics))

    def draw(ax: Axes, metric: str, clusters: list[str], colors: dict[str, str]) -> None:
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

    def legend(fig: FigureBase, axes: list[Axes], clusters: list[str], colors: dict[str, str]) -> None:
        handles = [Line2D([], [], color=colors[c], lw=1.4) for c in clusters]
        fig.legend(handles, clusters, loc="outside upper right", fontsize=7, ncols=len(clusters))

    return _cluster_panels(
        df, origin, title, metrics, draw, legend, ncols=ncols, nrows=-(-len(metrics) // ncols)
    )


# BurstGPT --------------------------------------------------------------------------------------------------


def requests_per_hour(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """Requests per hour over the trace (day N, or UTC when BurstGPT's day 0 is set) and by hour of day."""
    title = "BurstGPT requests per hour"
    if df.empty:
        return no_rows(df, title, "requests_per_hour", NO_REQUESTS, origin)
    calendar = bool(df["hour_start_utc"].notna().all())
    colors = file_colors(df)
    with figure_style():
        fig, (over_time, by_hour) = new_figure(title, 2, width_ratios=(2.2, 1))
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
                label=file_label(number, release),
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
        return render_png(fig, origin)


def requests_per_weekday(
    df: pd.DataFrame, origin: RowOrigin | None = None, start_date: date | None = None
) -> bytes:
    """Mean requests per observed day by weekday: relative (day N mod 7) unless BurstGPT's day 0 is set."""
    title = "BurstGPT requests by weekday"
    if df.empty:
        return no_rows(df, title, "requests_per_weekday", NO_REQUESTS, origin)
    colors = file_colors(df)
    files = list(df.groupby(["file_number", "release"], sort=True))
    width = 0.8 / len(files)
    with figure_style():
        fig, (ax,) = new_figure(title)
        for i, ((number, release), sub) in enumerate(files):
            offsets = sub["relative_weekday"].astype(float) - 0.4 + width * (i + 0.5)
            ax.bar(
                offsets,
                sub["mean_requests_per_day"],
                width=width,
                color=colors[int(number)],
                label=f"{file_label(number, release)}, {plural(int(sub['days_observed'].sum()), 'day')}",
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
        return render_png(fig, origin)


def token_distribution(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """Request and response tokens per model, log type and file: p50–p99 range, p90, mean and max."""
    title = "Tokens per request by model (not-failed requests)"
    if df.empty:
        return no_rows(df, title, "token_distribution", NO_REQUESTS, origin)
    models = ordered(df["model_name"], ("ChatGPT", "GPT-4"))
    colors = color_map(models, {"ChatGPT": "#10a37f", "GPT-4": "#6e44ff"})
    rows = df.sort_values(["model_name", "log_type", "file_number"]).reset_index(drop=True)
    labels = [
        f"{r.model_name} · {str(r.log_type).replace(' log', '')} · f{int(r.file_number)} "
        f"(n={int(r.not_failed_requests):,})"
        for r in rows.itertuples()
    ]
    with figure_style():
        fig, axes = new_figure(title, 2, sharey=True)
        for ax, side in zip(axes, ("request", "response"), strict=True):
            for y, r in rows.iterrows():
                color = colors[str(r["model_name"])]
                if not is_present(r[f"{side}_tokens_p50"]):
                    ax.text(1.2, y, "all failed", va="center", fontsize=6, color="#888888")
                    continue
                # log x: a value below one token is drawn at 1
                p50, p90, p99, mean, top = (
                    max(as_number(r[f"{side}_tokens_{s}"]), 1.0) for s in ("p50", "p90", "p99", "mean", "max")
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
        return render_png(fig, origin)


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
