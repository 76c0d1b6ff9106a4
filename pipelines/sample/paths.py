"""Mirror paths of the files the sample writes, always taken from the catalog."""

from __future__ import annotations

from pipelines.families.registry import fixed_files
from pipelines.families.upstream import UTILIZATION_DIR, UpstreamFile, metric_family


def fixed_file(family: str, file_name: str) -> UpstreamFile:
    """The catalog's fixed file of ``family`` named ``file_name``."""
    for f in fixed_files():
        if f.family == family and f.file_name == file_name:
            return f
    raise KeyError(f"the catalog has no fixed file {file_name!r} in family {family!r}")


def utilization_file(cluster: str, metric: str, file_stem: str | None = None) -> UpstreamFile:
    """A utilization file as the catalog's discovery would name it (``file_stem`` for split pieces)."""
    stem = file_stem or metric
    repo_path = f"{UTILIZATION_DIR}/{cluster}/{stem}.csv"
    return UpstreamFile(metric_family(metric), "huggingface", repo_path, cluster, metric)
