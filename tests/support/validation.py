"""Helpers for the validation tests: small CSVs loaded with the real loader (:func:`load_csv`,
:func:`load_path`, the real rows shipped with the project in :data:`REAL_FILES`), validation run directly
(:func:`validate`), and what it leaves in the lake and the warehouse."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

import duckdb

from pipelines.families.registry import fixed_files
from pipelines.families.upstream import UpstreamFile, discover_utilization
from pipelines.lake.loader import LoadResult, SourceFile, load_file
from pipelines.settings import Settings
from pipelines.validate.data_docs import render
from pipelines.validate.outcomes import FamilyValidation
from pipelines.validate.validation import validate_family
from pipelines.warehouse.db import writer
from pipelines.warehouse.views import refresh_views

# The real rows shipped with the project (under REAL_DIR, tests/conftest.py), by the upstream file they
# stand for.
REAL_FILES = {
    "BurstGPT_1.csv": "burstgpt_1_first400.csv",
    "trace_kalos.csv": "acmetrace_kalos_readme_rows.csv",
    "trace_seren.csv": "acmetrace_seren_readme_rows.csv",
    "cluster_summary.csv": "acmetrace_cluster_summary.csv",
}

SEREN_HEADER = (
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time"
)
KALOS_HEADER = (
    "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,start_time,"
    "end_time,fail_time,stop_time,duration,queue,gpu_time"
)
BURST_HEADER = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"
BURST3_HEADER = "Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log Type"


def _secs(a: str, b: str) -> int:
    return int((datetime.fromisoformat(a) - datetime.fromisoformat(b)).total_seconds())


def seren_line(
    job_id: int = 5778432,
    *,
    submit: str = "2023-03-01 00:18:22",
    start: str = "2023-03-01 00:18:54",
    end: str = "2023-03-01 00:20:51",
    gpu_num: int = 8,
    cpu_num: int = 128,
    node_num: int = 1,
    type_: str = "Other",
    state: str = "COMPLETED",
    offset: str = "+08:00",
    duration: float | None = None,
    queue: float | None = None,
    gpu_time: float | None = None,
) -> str:
    """A Seren CSV line whose duration, queue and gpu_time follow the documented rules unless given."""
    duration = _secs(end, start) if duration is None else duration
    queue = _secs(start, submit) if queue is None else queue
    gpu_time = float(duration * gpu_num) if gpu_time is None else gpu_time
    times = ",".join(f"{t}{offset}" for t in (submit, start, end))
    return (
        f"{job_id},u5907,{node_num},{gpu_num},{cpu_num},{type_},{state},{times},{duration},{queue},{gpu_time}"
    )


def kalos_line(
    job_id: str = "dlctk696s0jbvitv",
    *,
    state: str = "COMPLETED",
    submit: str = "2023-05-17 11:00:58",
    start: str = "2023-05-17 11:01:08",
    end: str = "2023-05-17 11:01:16",
    fail_time: str = "",
    stop_time: str = "",
    gpu_num: int = 64,
    offset: str = "+00:00",
    type_: str = "Other",
) -> str:
    """A Kalos CSV line following the documented rules (duration = end − start)."""
    duration = _secs(end, start)
    stamp = lambda t: f"{t}{offset}" if t else ""  # noqa: E731
    times = ",".join(stamp(t) for t in (submit, start, end, fail_time, stop_time))
    return (
        f"{job_id},uf794,8,{gpu_num},960,1000,100.0,{type_},{state},{times},{duration},"
        f"{float(_secs(start, submit))},{float(duration * gpu_num)}"
    )


def upstream(name: str) -> UpstreamFile:
    """The catalog entry of a file name (``BurstGPT_1.csv``) or utilization path (``kalos/SM_ACTIVE.csv``)."""
    for f in fixed_files():
        if f.file_name == name:
            return f
    (found,) = discover_utilization([f"data/utilization/{name}"]).files
    return found


def load_csv(
    settings: Settings, tmp_path: Path, name: str, text: str, origin: str = "synthetic"
) -> LoadResult:
    path = tmp_path / "csv" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return load_path(settings, name, path, origin)


def load_path(settings: Settings, name: str, path: Path, origin: str = "synthetic") -> LoadResult:
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    return load_file(settings, SourceFile(upstream(name), path, sha, origin))


def validate(settings: Settings, family: str, *, docs: bool = False) -> FamilyValidation:
    """Validate ``family``; with ``docs``, also render its Data Docs pages as a run's ``docs/gx`` does."""
    result = validate_family(settings, family, publish_docs=docs)
    if docs:
        render(settings)
    return result


def lake_quarantine(settings: Settings, family: str) -> list[dict]:
    glob = settings.quarantine_dir / family / "_partition=*" / "*.parquet"
    if not list(glob.parent.parent.glob("_partition=*/*.parquet")):
        return []
    rel = duckdb.sql(
        f"select * exclude (_partition), _partition from read_parquet('{glob}', hive_partitioning = true, "
        "hive_types = {'_partition': 'VARCHAR'}) order by all"
    )
    return [dict(zip(rel.columns, r, strict=True)) for r in rel.fetchall()]


def view_quarantine(settings: Settings, family: str) -> list[dict]:
    """``quarantine.<family>`` in trace.duckdb, after refreshing the view."""
    with writer(settings) as con:
        refresh_views(con, settings, [family])
        rel = con.execute(
            f"select _source_file, _row_number, rule, details from quarantine.{family} order by all"
        )
        return [dict(zip([d[0] for d in rel.description], r, strict=True)) for r in rel.fetchall()]


def raw_row_numbers(settings: Settings, family: str) -> list[int]:
    glob = settings.raw_dir / family / "_partition=*" / "*.parquet"
    return [r[0] for r in duckdb.sql(f"select _row_number from read_parquet('{glob}') order by 1").fetchall()]


def assert_reconciled(result: FamilyValidation) -> None:
    for p in result.partitions:
        assert p.loaded == p.passed + p.quarantined, p
    assert result.loaded == result.passed + result.quarantined
