"""Which upstream files each benchmark reads.

- The **workload**: both job files and BurstGPT files 1–2 (≈6.2 M rows at scale 1.0) — what
  fetch, load, validate, dbt, ``pipeline_total`` and both baselines process.
- **Utilization**: every DCGM and Prometheus file of the mirror (loaded separately: its size is set by
  ``--util-nodes``/``--util-days``, not by ``--scale``).
- **Calibration**: what the calibration's marts are built from — jobs, BurstGPT files 1–3 (the
  without-fails numbers are those of their not-failed requests), GPU_UTIL and NODE_CPU_UTILIZATION of
  both clusters.
"""

from __future__ import annotations

from collections.abc import Iterable

from pipelines.families.registry import fixed_files
from pipelines.families.upstream import UpstreamFile, discover_utilization

JOB_FAMILIES = ("acme__seren_jobs", "acme__kalos_jobs")
REQUESTS_FAMILY = "burstgpt__requests"
WORKLOAD_FAMILIES = (*JOB_FAMILIES, REQUESTS_FAMILY)
WORKLOAD_REQUEST_FILES = ("BurstGPT_1.csv", "BurstGPT_2.csv")
APPENDED_FILE = "BurstGPT_2.csv"  # the file the incremental benchmark appends one day to
UTILIZATION_FAMILIES = ("acme__gpu_metrics", "acme__node_metrics")
CALIBRATION_FAMILIES = (*JOB_FAMILIES, REQUESTS_FAMILY, *UTILIZATION_FAMILIES)
CALIBRATION_METRICS = ("GPU_UTIL", "NODE_CPU_UTILIZATION")
# The utilization file grown 0.25x / 1x / 4x: one metric at full width over --util-days (GPU_UTIL has a
# week of its own by default, too long to load 4x of three times).
MEMORY_FILE = ("kalos", "POWER_USAGE")


def _fixed(family: str, file_names: Iterable[str] | None = None) -> list[UpstreamFile]:
    names = set(file_names) if file_names is not None else None
    return [f for f in fixed_files() if f.family == family and (names is None or f.file_name in names)]


def workload_files() -> list[UpstreamFile]:
    """Seren and Kalos job traces, BurstGPT_1.csv and BurstGPT_2.csv."""
    jobs = [f for fam in JOB_FAMILIES for f in _fixed(fam)]
    return jobs + _fixed(REQUESTS_FAMILY, WORKLOAD_REQUEST_FILES)


def appended_file() -> UpstreamFile:
    (found,) = _fixed(REQUESTS_FAMILY, [APPENDED_FILE])
    return found


def utilization_files(listing: Iterable[str]) -> list[UpstreamFile]:
    """Every DCGM and Prometheus file a mirror listing holds (split pieces included)."""
    return [f for f in discover_utilization(listing).files if f.family in UTILIZATION_FAMILIES]


def memory_file(listing: Iterable[str]) -> UpstreamFile:
    """The Kalos ``MEMORY_FILE`` (written whole by the generator) that the memory benchmark grows."""
    cluster, metric = MEMORY_FILE
    for f in utilization_files(listing):
        if f.cluster == cluster and f.metric == metric and f.file_name == f"{metric}.csv":
            return f
    raise LookupError(f"the mirror has no {cluster} {metric}.csv")


def calibration_files(listing: Iterable[str]) -> list[UpstreamFile]:
    fixed = [f for fam in (*JOB_FAMILIES, REQUESTS_FAMILY) for f in _fixed(fam)]
    util = [f for f in utilization_files(listing) if f.metric in CALIBRATION_METRICS]
    return fixed + util
