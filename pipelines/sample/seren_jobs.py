"""``data/job_trace/trace_seren.csv``: the 2 real README rows, then synthetic Seren jobs.

Layout [V]: 13 columns, integer job ids, ``+08:00`` times, ``duration = end − start``,
``queue = start − submit``, ``gpu_time = duration × gpu_num`` printed as a float (``936.0``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from pipelines.sample import calibration as cal
from pipelines.sample.arrivals import Clock, arrival_chunks
from pipelines.sample.formatting import csv_rows, decimals, epoch, ints, times
from pipelines.sample.jobs import Jobs, pick_users, sample_jobs, seren_profile, user_pool
from pipelines.sample.params import Progress, SampleParams
from pipelines.sample.paths import fixed_file
from pipelines.sample.real_rows import SEREN_README_ROWS, real_rows
from pipelines.sample.sampling import stream
from pipelines.sample.writer import MirrorFile
from pipelines.sources.mirror_manifest import MirrorEntry

COLUMNS = (
    "job_id", "user", "node_num", "gpu_num", "cpu_num", "type", "state",
    "submit_time", "start_time", "end_time", "duration", "queue", "gpu_time",
)  # fmt: skip
UTC_OFFSET_HOURS = 8


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


def write_seren_jobs(root: Path, params: SampleParams, progress: Progress) -> dict[str, MirrorEntry]:
    target = fixed_file("acme__seren_jobs", "trace_seren.csv")
    real = real_rows(SEREN_README_ROWS)
    if real.columns != list(COLUMNS):
        raise ValueError(f"{real.name}: header {real.columns} is not the Seren layout {COLUMNS}")
    n_synthetic = params.rows(cal.PUBLISHED_SEREN_ROWS, len(real.rows)) - len(real.rows)
    rng = stream(params.seed, "acme/seren_jobs")
    pool = user_pool(rng, cal.SEREN_USERS, real.field(real.rows[0], "user"), "0123456789")
    next_id = int(real.field(real.rows[-1], "job_id")) + 1
    with MirrorFile(root, target.mirror_path, COLUMNS) as out:
        for row in real.rows:
            out.write(row)
        for i, submit in enumerate(arrival_chunks(rng, seren_clock(), n_synthetic, cal.CHUNK_ROWS)):
            jobs = sample_jobs(rng, seren_profile(), submit, force_max_gpu=i == 0)
            ids = next_id + np.cumsum(rng.integers(1, 3, len(submit))) - 1
            next_id = int(ids[-1]) + 1
            out.write(csv_rows(seren_columns(jobs, ids, pick_users(rng, pool, len(submit)))))
    progress(f"{target.mirror_path}: {out.lines - 1:,} rows ({len(real.rows)} real)")
    return {target.mirror_path: out.written.entry("mixed", [(2, 1 + len(real.rows))])}
