"""``data/job_trace/trace_kalos.csv``: the 2 real README rows, then synthetic Kalos jobs.

Layout [V]: 17 columns, 16-character job ids, ``+00:00`` times, ``queue`` and ``shared_mem_per_pod``
printed as floats, ``fail_time`` only on FAILED rows and ``stop_time`` only on CANCELLED rows (both equal
to ``end_time``, as in the README rows).

Assumption: both README rows have ``duration = end_time − submit_time`` (not end − start) and
``gpu_time = duration × gpu_num``; how widespread that is upstream is unknown, so the sample makes it hold
on **every** Kalos row, which a validation suite can measure. The undocumented ``RUNNING`` state [S]
appears on exactly 3 rows (the latest submissions), with an empty ``end_time``, ``duration`` and
``gpu_time`` — that shape is assumed too.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow as pa

from pipelines.sample import calibration as cal
from pipelines.sample.arrivals import Clock, arrival_chunks
from pipelines.sample.formatting import decimals, epoch, ints, random_ids, times
from pipelines.sample.jobs import JobFile, Jobs, kalos_profile, pick_users, sample_jobs, write_job_file
from pipelines.sample.params import Progress, SampleParams
from pipelines.sample.real_rows import KALOS_README_ROWS, RealRows
from pipelines.sample.sampling import choice
from pipelines.sources.mirror_manifest import MirrorEntry

COLUMNS = (
    "job_id", "user", "node_num", "gpu_num", "cpu_num", "mem_per_pod_GB", "shared_mem_per_pod", "type",
    "state", "submit_time", "start_time", "end_time", "fail_time", "stop_time", "duration", "queue",
    "gpu_time",
)  # fmt: skip
UTC_OFFSET_HOURS = 0
JOB_ID_PREFIX = "dlc"
JOB_ID_LENGTH = 16
CPU_JOB_MEM_GB: cal.GpuShape = ((4, 8, 16, 32, 64, 128), (0.2, 0.25, 0.25, 0.15, 0.1, 0.05))
RUNNING_NOTE = (
    "synthetic; the 3 RUNNING rows (an undocumented state seen by third parties) are given an empty "
    "end_time, duration and gpu_time: that shape is assumed. duration = end_time - submit_time on every "
    "row (the README rows' quirk, assumed to hold throughout)."
)
KALOS = JobFile(
    "acme__kalos_jobs", "trace_kalos.csv", KALOS_README_ROWS, COLUMNS, cal.PUBLISHED_KALOS_ROWS,
    cal.KALOS_USERS, "0123456789abcdef", RUNNING_NOTE,
)  # fmt: skip


def kalos_clock() -> Clock:
    start, end = (epoch(t) for t in cal.KALOS_SUBMIT_WINDOW)
    return Clock(start, end, cal.HOUR_OF_DAY_WEIGHTS, 8 * 3600, cal.WEEKEND_FACTOR)


def job_ids(rng: np.random.Generator, n: int, seen: set[str]) -> pa.Array:
    """``n`` fresh ids like ``dlctk696s0jbvitv``, none in ``seen`` (which is updated)."""
    ids = random_ids(rng, n, JOB_ID_PREFIX, JOB_ID_LENGTH).to_pylist()
    for i, job_id in enumerate(ids):
        while job_id in seen:
            job_id = random_ids(rng, 1, JOB_ID_PREFIX, JOB_ID_LENGTH)[0].as_py()
        ids[i] = job_id
        seen.add(job_id)
    return pa.array(ids)


def kalos_columns(
    rng: np.random.Generator, jobs: Jobs, ids: pa.Array, users: pa.Array
) -> dict[str, pa.Array]:
    n = len(jobs.submit)
    is_gpu = jobs.gpu_num > 0
    per_pod = np.minimum(jobs.gpu_num, cal.GPUS_PER_NODE)
    mem = np.where(is_gpu, 125 * per_pod, choice(rng, CPU_JOB_MEM_GB, n))
    shared = np.where(is_gpu, 12.5 * per_pod, mem / 8)
    running = jobs.state == "RUNNING"
    duration = jobs.end - jobs.submit  # the Kalos quirk, on every row (see module docstring)
    return {
        "job_id": ids,
        "user": users,
        "node_num": ints(jobs.node_num),
        "gpu_num": ints(jobs.gpu_num),
        "cpu_num": ints(jobs.cpu_num),
        "mem_per_pod_GB": ints(mem),
        "shared_mem_per_pod": decimals(shared, 1),
        "type": pa.array(jobs.job_type),
        "state": pa.array(jobs.state),
        "submit_time": times(jobs.submit, UTC_OFFSET_HOURS),
        "start_time": times(jobs.start, UTC_OFFSET_HOURS),
        "end_time": times(jobs.end, UTC_OFFSET_HOURS, mask=running),
        "fail_time": times(jobs.end, UTC_OFFSET_HOURS, mask=jobs.state != "FAILED"),
        "stop_time": times(jobs.end, UTC_OFFSET_HOURS, mask=jobs.state != "CANCELLED"),
        "duration": ints(duration, mask=running),
        "queue": decimals(jobs.queue, 1),
        "gpu_time": decimals(duration * jobs.gpu_num, 1, mask=running),
    }


def _mark_running(jobs: Jobs, rows: int) -> Jobs:
    """The last ``rows`` jobs (the latest submissions) are still running."""
    state = jobs.state.copy()
    state[len(state) - rows :] = "RUNNING"
    return replace(jobs, state=state)


def kalos_chunks(
    rng: np.random.Generator, real: RealRows, pool: list[str], n: int
) -> Iterator[dict[str, pa.Array]]:
    """``n`` synthetic jobs, chunk by chunk (all arrivals drawn first), the last chunk's latest running."""
    seen = {real.field(r, "job_id") for r in real.rows}
    chunks = list(arrival_chunks(rng, kalos_clock(), n, cal.CHUNK_ROWS))
    for i, submit in enumerate(chunks):
        jobs = sample_jobs(rng, kalos_profile(), submit, force_max_gpu=i == 0)
        if i == len(chunks) - 1:
            jobs = _mark_running(jobs, cal.KALOS_RUNNING_ROWS)
        ids, users = job_ids(rng, len(submit), seen), pick_users(rng, pool, len(submit))
        yield kalos_columns(rng, jobs, ids, users)


def write_kalos_jobs(root: Path, params: SampleParams, progress: Progress) -> dict[str, MirrorEntry]:
    return write_job_file(root, params, progress, KALOS, kalos_chunks)
