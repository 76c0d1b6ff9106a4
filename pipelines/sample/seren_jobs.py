"""``data/job_trace/trace_seren.csv``: the 2 real README rows, then synthetic Seren jobs.

Layout [V]: 13 columns, integer job ids, ``+08:00`` times, ``duration = end − start``,
``queue = start − submit``, ``gpu_time = duration × gpu_num`` printed as a float (``936.0``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa

from pipelines.sample import calibration as cal
from pipelines.sample.arrivals import Clock, arrival_chunks
from pipelines.sample.formatting import decimals, epoch, ints, times
from pipelines.sample.jobs import JobFile, Jobs, pick_users, sample_jobs, seren_profile, write_job_file
from pipelines.sample.params import Progress, SampleParams
from pipelines.sample.real_rows import SEREN_README_ROWS, RealRows
from pipelines.sources.mirror_manifest import MirrorEntry

COLUMNS = (
    "job_id", "user", "node_num", "gpu_num", "cpu_num", "type", "state",
    "submit_time", "start_time", "end_time", "duration", "queue", "gpu_time",
)  # fmt: skip
UTC_OFFSET_HOURS = 8
SEREN = JobFile(
    "acme__seren_jobs", "trace_seren.csv", SEREN_README_ROWS, COLUMNS, cal.PUBLISHED_SEREN_ROWS,
    cal.SEREN_USERS, "0123456789",
)  # fmt: skip


def seren_clock() -> Clock:
    start, end = (epoch(t) for t in cal.SEREN_SUBMIT_WINDOW)
    return Clock(start, end, cal.HOUR_OF_DAY_WEIGHTS, UTC_OFFSET_HOURS * 3600, cal.WEEKEND_FACTOR)


def seren_columns(jobs: Jobs, job_ids: np.ndarray, users: pa.Array) -> dict[str, pa.Array]:
    run = jobs.run
    return {
        "job_id": ints(job_ids),
        "user": users,
        "node_num": ints(jobs.node_num),
        "gpu_num": ints(jobs.gpu_num),
        "cpu_num": ints(jobs.cpu_num),
        "type": pa.array(jobs.job_type),
        "state": pa.array(jobs.state),
        "submit_time": times(jobs.submit, UTC_OFFSET_HOURS),
        "start_time": times(jobs.start, UTC_OFFSET_HOURS),
        "end_time": times(jobs.end, UTC_OFFSET_HOURS),
        "duration": ints(run),
        "queue": ints(jobs.queue),
        "gpu_time": decimals(run * jobs.gpu_num, 1),
    }


def seren_chunks(
    rng: np.random.Generator, real: RealRows, pool: list[str], n: int
) -> Iterator[dict[str, pa.Array]]:
    """``n`` synthetic jobs, chunk by chunk; ids go on from the last README row's, by steps of 1 or 2."""
    next_id = int(real.field(real.rows[-1], "job_id")) + 1
    for i, submit in enumerate(arrival_chunks(rng, seren_clock(), n, cal.CHUNK_ROWS)):
        jobs = sample_jobs(rng, seren_profile(), submit, force_max_gpu=i == 0)
        ids = next_id + np.cumsum(rng.integers(1, 3, len(submit))) - 1
        next_id = int(ids[-1]) + 1
        yield seren_columns(jobs, ids, pick_users(rng, pool, len(submit)))


def write_seren_jobs(root: Path, params: SampleParams, progress: Progress) -> dict[str, MirrorEntry]:
    return write_job_file(root, params, progress, SEREN, seren_chunks)
