"""Published numbers the calibration compares against, copied from ``../shared/reference/DATASETS.md``
(tags as there: [V] checked in the upstream repository, [S] second-hand) — deliberately not imported from
the generator's ``calibration.py``, so the check is independent of the thing it checks.

Each number has a key (the calibration queries return values under the same keys), a unit, and a
tolerance: shares ±1 percentage point (±2 where the published value is itself approximate, "≈"),
medians ±10 % (at least ±1 s), utilization percentages ±1 point, counts normalized by ``--scale`` ±1 %.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Unit = Literal["share", "s", "pct", "gpus", "rows", "per_hour"]


@dataclass(frozen=True)
class Tolerance:
    absolute: float = 0.0  # in the unit (a share's ±1 pp is 0.01)
    relative: float = 0.0  # of the published value
    at_least: bool = False  # a lower bound: generated ≥ published passes

    def allows(self, published: float, generated: float) -> bool:
        if self.at_least:
            return generated >= published
        return abs(generated - published) <= max(self.absolute, self.relative * abs(published)) + 1e-12

    def describe(self, unit: Unit) -> str:
        if self.at_least:
            return "≥ published"
        parts = []
        if self.absolute:
            parts.append(f"±{self.absolute * 100:g} pp" if unit == "share" else f"±{self.absolute:g}")
        if self.relative:
            parts.append(f"±{self.relative * 100:g} %")
        return " or ".join(parts) if parts else "exact"


PP1 = Tolerance(absolute=0.01)
PP2 = Tolerance(absolute=0.02)
MEDIAN = Tolerance(absolute=1.0, relative=0.10)
POINT1 = Tolerance(absolute=1.0)
COUNT = Tolerance(relative=0.01)
EXACT = Tolerance()


@dataclass(frozen=True)
class Published:
    key: str
    label: str
    value: float
    unit: Unit
    tolerance: Tolerance
    source: str
    per_scale: bool = False  # the generated value is divided by --scale before the comparison


def _share(key: str, label: str, num: float, den: float, source: str, tol: Tolerance = PP1) -> Published:
    return Published(key, label, num / den, "share", tol, source)


_SUMMARY = "DATASETS.md headline numbers (cluster_summary.csv) [V]"
_FIGURE = "DATASETS.md headline numbers (paper figure) [V]"
_ROWS = "DATASETS.md headline numbers [S]"
_BURST = "DATASETS.md BurstGPT headline numbers [S]"
_UTIL = "DATASETS.md headline numbers (official CDF files) [V]"

SEREN_ROWS, KALOS_ROWS = 818_327, 62_413
SEREN_GPU_JOBS, KALOS_GPU_JOBS = 450_590, 19_907
GPU_STATE_SHARES = {  # GPU jobs: completed / cancelled / failed, by count and by GPU time [V]
    "seren": {"count": (0.497, 0.075, 0.429), "gpu_time": (0.212, 0.664, 0.124)},
    "kalos": {"count": (0.541, 0.062, 0.397), "gpu_time": (0.313, 0.607, 0.080)},
}
STATE_GROUPS = ("completed", "cancelled", "failed")
KALOS_ALL_STATES = {"COMPLETED": 47_311, "FAILED": 13_836, "CANCELLED": 1_263}  # [S]
REQUEST_ROWS = {1: 1_429_737, 2: 3_858_400, 3: 5_344_021}  # file 2 "≈" (README)
WITHOUT_FAILS_ROWS = {1: 1_404_294, 2: 3_784_213, 3: 4_956_058}
GPT4_ROWS = {1: 215_127, 2: 87_349, 3: 754_536}  # in without_fails
CONVERSATION_ROWS = {1: 145_707, 2: 79_445, 3: 231_761}  # in without_fails
DUPLICATE_ROWS = {1: 40_910, 2: 88_687, 3: 150_523}  # exact duplicates in without_fails
REQUESTS_PER_HOUR = {1: 959, 2: 2_628, 3: 1_877}  # mean, without_fails


def _jobs() -> list[Published]:
    rows: list[Published] = [
        Published("seren.rows", "Seren job rows (÷ scale)", SEREN_ROWS, "rows", COUNT, _ROWS, per_scale=True),
        Published("kalos.rows", "Kalos job rows (÷ scale)", KALOS_ROWS, "rows", COUNT, _ROWS, per_scale=True),
        _share("seren.gpu_job_share", "Seren GPU jobs / all jobs", SEREN_GPU_JOBS, SEREN_ROWS, _ROWS),
        _share("kalos.gpu_job_share", "Kalos GPU jobs / all jobs", KALOS_GPU_JOBS, KALOS_ROWS, _ROWS),
    ]
    for cluster, by in GPU_STATE_SHARES.items():
        for basis, values in by.items():
            for group, value in zip(STATE_GROUPS, values, strict=True):
                label = f"{cluster.title()} GPU jobs {group}, share by {basis.replace('_', ' ')}"
                rows.append(
                    Published(
                        f"{cluster}.gpu_state_share.{basis}.{group}", label, value, "share", PP1, _SUMMARY
                    )
                )
    type_counts = (
        ("seren", "Eval", 0.649),
        ("seren", "SFT", 0.149),
        ("seren", "Other", 0.146),
        ("kalos", "Eval", 0.928),
    )
    for cluster, job_type, value in type_counts:
        label = f"{cluster.title()} GPU jobs {job_type}, share by count"
        rows.append(
            Published(f"{cluster}.gpu_type_share.count.{job_type}", label, value, "share", PP1, _FIGURE)
        )
    rows += [
        Published("seren.gpu_type_share.gpu_time.Pretrain", "Seren Pretrain, share of GPU time", 0.695, "share",
                  PP1, _FIGURE),
        Published("kalos.gpu_type_share.gpu_time.Pretrain", "Kalos Pretrain, share of GPU time (≈)", 0.955,
                  "share", PP2, _FIGURE),
    ]  # fmt: skip
    for cluster in ("seren", "kalos"):
        name = cluster.title()
        rows += [
            Published(f"{cluster}.gpu_num.share_1gpu", f"{name} 1-GPU jobs / GPU jobs (median gpu_num is 1)",
                      0.5, "share", Tolerance(at_least=True), _SUMMARY),
            Published(f"{cluster}.gpu_num.max", f"{name} max gpu_num", 1024, "gpus", EXACT, _SUMMARY),
        ]  # fmt: skip
    rows += [
        Published(
            "seren.gpu_jobs.median_run_s", "Seren GPU jobs median duration", 122, "s", MEDIAN, _SUMMARY
        ),
        Published(
            "kalos.gpu_jobs.median_run_s", "Kalos GPU jobs median duration", 124, "s", MEDIAN, _SUMMARY
        ),
        Published("seren.gpu_jobs.median_queue_s", "Seren GPU jobs median queue", 1, "s", MEDIAN, _SUMMARY),
        Published("kalos.gpu_jobs.median_queue_s", "Kalos GPU jobs median queue", 17, "s", MEDIAN, _SUMMARY),
    ]
    for state, n in KALOS_ALL_STATES.items():
        rows.append(_share(f"kalos.all_state_share.{state}", f"Kalos all jobs {state}", n, KALOS_ROWS, _ROWS))
    rows.append(Published("kalos.running_rows", "Kalos RUNNING rows (every scale)", 3, "rows", EXACT, _ROWS))
    return rows


def _requests() -> list[Published]:
    rows: list[Published] = []
    for n in (1, 2, 3):
        f, wf = f"BurstGPT_{n}", f"without_fails_{n}"
        approx = " (≈)" if n == 2 else ""
        rows += [
            Published(f"burstgpt.{n}.rows", f"{f} rows (÷ scale){approx}", REQUEST_ROWS[n], "rows", COUNT, _BURST,
                      per_scale=True),
            _share(f"burstgpt.{n}.failed_share", f"{f} failed requests (response tokens 0) / rows{approx}",
                   REQUEST_ROWS[n] - WITHOUT_FAILS_ROWS[n], REQUEST_ROWS[n], _BURST),
            _share(f"burstgpt.{n}.gpt4_share", f"{wf} GPT-4 share", GPT4_ROWS[n], WITHOUT_FAILS_ROWS[n], _BURST),
            _share(f"burstgpt.{n}.conversation_share", f"{wf} Conversation-log share", CONVERSATION_ROWS[n],
                   WITHOUT_FAILS_ROWS[n], _BURST),
            _share(f"burstgpt.{n}.duplicate_share", f"{wf} exact duplicate rows / rows", DUPLICATE_ROWS[n],
                   WITHOUT_FAILS_ROWS[n], _BURST),
            Published(f"burstgpt.{n}.requests_per_hour", f"{wf} mean requests per hour (÷ scale)",
                      REQUESTS_PER_HOUR[n], "per_hour", Tolerance(relative=0.10), _BURST, per_scale=True),
        ]  # fmt: skip
    return rows


def _utilization() -> list[Published]:
    return [
        Published("seren.gpu_util.median", "Seren median GPU_UTIL", 99, "pct", POINT1, _UTIL),
        Published("kalos.gpu_util.median", "Kalos median GPU_UTIL", 98, "pct", POINT1, _UTIL),
        Published("seren.gpu_util.zero_share", "Seren GPU_UTIL samples at 0 (≈)", 0.31, "share", PP2, _UTIL),
        Published("seren.node_cpu.median", "Seren median node CPU utilization", 8.0, "pct", POINT1, _SUMMARY),
        Published(
            "kalos.node_cpu.median", "Kalos median node CPU utilization", 20.1, "pct", POINT1, _SUMMARY
        ),
        Published(
            "kalos.node_cpu.max", "Kalos max node CPU utilization", 238.9, "pct", Tolerance(0.05), _SUMMARY
        ),
    ]


def published_numbers() -> list[Published]:
    return [*_jobs(), *_requests(), *_utilization()]
