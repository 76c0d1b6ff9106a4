"""Figures of the notebook marts: per-type duration and queueing-delay CDFs, final states within each job type,
hourly cluster occupancy, GPU-hours over users and BurstGPT token throughput. The same drawing rules as
``figures``, from ``plotting``: matplotlib's object API on Agg, imported inside the functions, "no data" on an
empty frame, the origin footer."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pipelines.report.origin import RowOrigin
from pipelines.report.plotting import (
    DURATION_TICKS,
    NO_GPU_JOBS,
    NO_REQUESTS,
    STATE_COLORS,
    TYPE_COLORS,
    cluster_colors,
    color_map,
    figure_style,
    file_colors,
    file_label,
    new_figure,
    no_rows,
    ordered,
    render_png,
    stacked_shares,
)

if TYPE_CHECKING:
    import pandas as pd

# The notebook's per-type figure: the file's duration on 2**0..2**21 s, its queue on 2**0..2**15 s.
TYPE_CDF_PANELS = (
    ("reported_duration_s", "Duration (the file's)", 2**21),
    ("reported_queue_s", "Queueing delay (the file's)", 2**15),
)
CLUSTER_LINESTYLES = ("-", "--", ":", "-.")
NO_JOB_TIMES = "no GPU jobs with a submit time"
TOP_USER_PERCENTS = (1, 5, 10)


def job_duration_cdf_by_type(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """CDF of GPU-job duration and queueing delay per job type (colour) and cluster (line style), log x."""
    title = "Duration and queueing delay per job type (CDF)"
    if df.empty:
        return no_rows(df, title, "job_duration_cdf_by_type", NO_GPU_JOBS, origin)
    clusters = ordered(df["cluster_name"])
    types = ordered(df["job_type"], tuple(TYPE_COLORS))
    colors = color_map(types, TYPE_COLORS)
    styles = {c: CLUSTER_LINESTYLES[i % len(CLUSTER_LINESTYLES)] for i, c in enumerate(clusters)}
    with figure_style():
        fig, axes = new_figure(title, 2, sharey=True)
        for ax, (measure, label, x_max) in zip(axes, TYPE_CDF_PANELS, strict=True):
            for cluster in clusters:
                for job_type in types:
                    sub = df[
                        (df["cluster_name"] == cluster)
                        & (df["job_type"] == job_type)
                        & (df["measure"] == measure)
                    ]
                    if sub.empty:
                        continue
                    ax.plot(
                        sub["threshold_s"],
                        sub["cumulative_share"],
                        color=colors[job_type],
                        ls=styles[cluster],
                        lw=1.2,
                    )
            ax.set_xscale("log")
            ax.set_xlim(1, x_max)
            ax.set_xticks(
                [t for t, lab in DURATION_TICKS if t <= x_max],
                [lab for t, lab in DURATION_TICKS if t <= x_max],
            )
            ax.minorticks_off()
            ax.set_ylim(0, 1.02)
            ax.set_xlabel(label)
        axes[0].set_ylabel("Share of the type's GPU jobs ≤ x")
        for job_type in types:
            axes[0].plot([], [], color=colors[job_type], label=job_type)
        for cluster in clusters:
            axes[1].plot([], [], color="#555555", ls=styles[cluster], label=cluster)
        axes[0].legend(loc="lower right", title="type")
        axes[1].legend(loc="lower right", title="cluster")
        return render_png(fig, origin)


def job_state_shares_by_type(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """Final state of GPU jobs within each cluster and job type, by count and by GPU time."""
    title = "Final state of GPU jobs per job type"
    if not df.empty:
        df = df.assign(cluster_name=df["cluster_name"] + " · " + df["job_type"])
    return stacked_shares(
        df, origin, title=title, mart="job_state_shares_by_type", category="state_group", fixed=STATE_COLORS
    )


def cluster_occupancy_hourly(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """GPUs running (GPU-hours per hour) and queued per cluster over its days; running by the cluster's local hour."""
    title = "Cluster occupancy from the jobs"
    if df.empty:
        return no_rows(df, title, "cluster_occupancy_hourly", NO_JOB_TIMES, origin)
    clusters, colors = cluster_colors(df)
    with figure_style():
        fig, (over_time, by_hour) = new_figure(title, 2, width_ratios=(1.6, 1))
        for cluster in clusters:
            sub = df[df["cluster_name"] == cluster]
            days = (sub["hour_index"] - sub["hour_index"].min()) / 24  # clusters of different years, one axis
            over_time.plot(
                days, sub["running_gpu_hours"], color=colors[cluster], lw=0.9, label=f"{cluster} running"
            )
            over_time.plot(
                days,
                sub["mean_queued_gpus"],
                color=colors[cluster],
                lw=0.7,
                ls=":",
                label=f"{cluster} queued",
            )
            local = sub[sub["local_hour_of_day"].notna()]
            hours = local if not local.empty else sub
            column = "local_hour_of_day" if not local.empty else "utc_hour_of_day"
            mean = hours.groupby(column)["running_gpu_hours"].mean()
            by_hour.plot(
                mean.index,
                mean.values,
                color=colors[cluster],
                lw=1.2,
                marker=".",
                label=f"{cluster} ({'local' if not local.empty else 'UTC'})",
            )
        over_time.set_ylabel("GPUs (mean over the hour)")
        over_time.set_xlabel("days since the cluster's first hour")
        over_time.legend(loc="upper left", ncols=2)
        by_hour.set_xlim(0, 23)
        by_hour.set_xticks([0, 6, 12, 18, 23])
        by_hour.set_xlabel("hour of day (cluster's local time)")
        by_hour.set_ylabel("mean running GPUs")
        by_hour.legend(loc="upper left")
        return render_png(fig, origin)


def user_gpu_hours(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """Lorenz curve of GPU-hours over users from the heaviest, per cluster; top 1 / 5 / 10 % marked."""
    title = "GPU-hours concentration over users"
    if df.empty:
        return no_rows(df, title, "user_gpu_hours", NO_GPU_JOBS, origin)
    clusters, colors = cluster_colors(df)
    with figure_style():
        fig, (ax,) = new_figure(title)
        for cluster in clusters:
            sub = df[(df["cluster_name"] == cluster) & df["cumulative_share_of_gpu_hours"].notna()]
            if sub.empty:
                continue
            users = int(sub["cluster_users"].iloc[0])
            x = [0.0, *(sub["user_rank"] / users * 100)]
            y = [0.0, *sub["cumulative_share_of_gpu_hours"]]
            ax.plot(x, y, color=colors[cluster], lw=1.4, label=f"{cluster} ({users:,} users)")
            for percent in TOP_USER_PERCENTS:
                top = max(1, math.ceil(users * percent / 100))
                point = sub[sub["user_rank"] == top]
                if not point.empty:
                    ax.plot(
                        percent,
                        point["cumulative_share_of_gpu_hours"].iloc[0],
                        "o",
                        color=colors[cluster],
                        ms=3,
                    )
        ax.plot([0, 100], [0, 1], color="#999999", lw=0.7, ls=":", label="every user equal")
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xlim(0, 100)
        ax.set_xticks([0, 1, 5, 10, 50, 100], ["0", "1", "5", "10", "50", "100"])
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("Top % of users by GPU-hours (dots: top 1 / 5 / 10 %)")
        ax.set_ylabel("Share of the cluster's GPU-hours")
        ax.legend(loc="lower right")
        return render_png(fig, origin)


def tokens_per_hour(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """Request and response tokens per second (hourly means) over the trace, per file."""
    title = "BurstGPT token throughput per hour"
    if df.empty:
        return no_rows(df, title, "tokens_per_hour", NO_REQUESTS, origin)
    colors = file_colors(df)
    panels = (
        ("request_tokens_per_s", "Request tokens / s"),
        ("response_tokens_per_s", "Response tokens / s"),
    )
    with figure_style():
        fig, axes = new_figure(title, 2, sharey=False)
        for ax, (column, label) in zip(axes, panels, strict=True):
            for (number, release), sub in df.groupby(["file_number", "release"], sort=True):
                marker = "o" if len(sub) <= 48 else None
                ax.plot(
                    sub["hour_index"] / 24,
                    sub[column],
                    color=colors[int(number)],
                    lw=0.8,
                    marker=marker,
                    ms=2,
                    label=file_label(number, release),
                )
            ax.set_ylim(bottom=0)
            ax.set_xlabel("Trace day N (hourly means)")
            ax.set_ylabel(label)
        axes[0].legend(loc="upper right")
        return render_png(fig, origin)


def gpu_num_by_type(df: pd.DataFrame, origin: RowOrigin | None = None) -> bytes:
    """Box plot of GPUs per GPU job by cluster and type (quartiles, 1.5 IQR whiskers), log y."""
    title = "GPUs per GPU job by type (box plot)"
    if not df.empty:
        df = df[df["population"] == "gpu_jobs"]
    if df.empty:
        return no_rows(df, title, "gpu_num_by_type", NO_GPU_JOBS, origin)
    clusters, colors = cluster_colors(df)
    types = ordered(df["job_type"], tuple(TYPE_COLORS))
    boxes, box_colors = [], []
    for cluster in clusters:
        for job_type in types:
            row = df[(df["cluster_name"] == cluster) & (df["job_type"] == job_type)]
            if row.empty:
                continue
            r = row.iloc[0]
            boxes.append(
                {
                    "med": r["p50_gpu_num"],
                    "q1": r["p25_gpu_num"],
                    "q3": r["p75_gpu_num"],
                    "whislo": r["lower_whisker_gpu_num"],
                    "whishi": r["upper_whisker_gpu_num"],
                    "fliers": [
                        v
                        for v in (r["min_gpu_num"], r["max_gpu_num"])
                        if v < r["lower_whisker_gpu_num"] or v > r["upper_whisker_gpu_num"]
                    ],
                    "label": f"{cluster}\n{job_type}",
                }
            )
            box_colors.append(colors[cluster])
    with figure_style():
        fig, (ax,) = new_figure(title)
        artists = ax.bxp(boxes, showfliers=True, patch_artist=True, widths=0.6)
        for patch, color in zip(artists["boxes"], box_colors, strict=True):
            patch.set_facecolor(color)
            patch.set_alpha(0.6)
        ax.set_yscale("log", base=2)
        ax.set_ylabel("GPUs requested (dots: min / max outside the whiskers)")
        ax.tick_params(axis="x", labelsize=6)
        return render_png(fig, origin)
