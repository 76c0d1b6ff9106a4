"""What users do today, written as the upstream AcmeTrace notebook (``analysis.ipynb``) does it: pandas
``read_csv`` of the job files, then for GPU jobs (``gpu_num > 0``) the duration CDF on the grid ``2**i`` s
(i = 0..21) with a Python list comprehension per grid point, the GPU-number CDF over 0..1024 by jobs and by
GPU time, final-state and type shares by count and by GPU time; for BurstGPT, pandas ``read_csv`` of the
files and requests per hour. The same outputs the warehouse's analysis marts hold.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.stage_protocol import StageContext, StageOutput

DURATION_GRID = [2**i for i in range(0, 22)]
GPU_NUM_GRID = list(range(0, 1025))
SECONDS_PER_HOUR = 3600


def num_cdf(df: Any, x_axis: list[int], key: str) -> list[float]:
    """Share (%) of rows with ``key`` at or below each grid point — the notebook's per-point filter."""
    data = df[[key]].copy()
    data.dropna(inplace=True)
    return [len(data[data[key] <= x]) / len(data) * 100 for x in x_axis]


def sum_cdf(df: Any, x_axis: list[int], key: str, key_to_time: str) -> list[float]:
    """Share (%) of ``key × key_to_time`` (GPU time) held by rows with ``key`` at or below each point."""
    data = df[[key, key_to_time]].copy()
    data["new"] = data[key] * data[key_to_time]
    data.dropna(inplace=True)
    total = data["new"].sum()
    return [data[data[key] <= x]["new"].sum() / total * 100 for x in x_axis]


def shares(gpu_jobs: Any, column: str) -> dict[str, dict[str, float]]:
    """Shares (%) of each value of ``column`` by job count and by GPU time."""
    count = gpu_jobs.groupby(column).size()
    gtime = gpu_jobs.groupby(column)["gpu_time"].sum()
    return {
        "count": (count / count.sum() * 100).round(3).to_dict(),
        "gpu_time": (gtime / gtime.sum() * 100).round(3).to_dict(),
    }


def job_analysis(data: Any) -> dict[str, Any]:
    gpu_jobs = data[data["gpu_num"] > 0]
    return {
        "duration_cdf": num_cdf(gpu_jobs, DURATION_GRID, "duration"),
        "gpu_num_cdf_jobs": num_cdf(gpu_jobs, GPU_NUM_GRID, "gpu_num"),
        "gpu_num_cdf_gpu_time": sum_cdf(gpu_jobs, GPU_NUM_GRID, "gpu_num", key_to_time="duration"),
        "state_shares": shares(gpu_jobs, "state"),
        "type_shares": shares(gpu_jobs, "type"),
    }


def requests_per_hour(data: Any) -> Any:
    data["hour"] = data["Timestamp"] // SECONDS_PER_HOUR
    return data.groupby("hour").size()


def run(ctx: StageContext) -> StageOutput:
    import pandas as pd

    jobs = {cluster: Path(p) for cluster, p in ctx.params["jobs"].items()}
    requests = [Path(p) for p in ctx.params["requests"]]
    ctx.ready()
    rows = 0
    outputs: dict[str, Any] = {}
    for cluster, path in jobs.items():
        data = pd.read_csv(path)
        rows += len(data)
        outputs[cluster] = job_analysis(data)
    hourly = []
    for path in requests:
        data = pd.read_csv(path)
        rows += len(data)
        hourly.append(requests_per_hour(data))
    ctx.done()
    paths = [*jobs.values(), *requests]
    return StageOutput(
        rows=rows,
        bytes=sum(p.stat().st_size for p in paths),
        detail={
            "state_shares": {c: o["state_shares"] for c, o in outputs.items()},
            "hours": [len(h) for h in hourly],
        },
    )
