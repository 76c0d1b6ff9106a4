"""``data/job_trace/trace_previous_work/{helios,philly,pai}_trace.csv`` (HuggingFace only).

**The headers are not verified upstream.** The upstream notebook reads these files by column name and
uses ``duration``, ``gpu_num``, ``queue``, ``state`` (PAI: ``plan_cpu``, ``plan_gpu`` — both ×100 —,
``wait_time``, ``status``). The layouts below are invented around those names and say so in the
manifest (``"unverified_layout": true``). Helios and Philly times are naive ``YYYY-MM-DD HH:MM:SS``;
PAI times are seconds from the trace start; PAI ``plan_gpu`` is fractional GPUs ×100 (``50.0``) and empty
on tasks without a GPU.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import numpy as np
import pyarrow as pa

from pipelines.sample import calibration as cal
from pipelines.sample.arrivals import Clock, arrival_chunks
from pipelines.sample.formatting import HEX, csv_rows, decimals, ints, random_ids, times
from pipelines.sample.params import Progress, SampleParams
from pipelines.sample.paths import fixed_file
from pipelines.sample.sampling import choice, exact_codes, lognormal, stream, waits, zipf_picks
from pipelines.sample.writer import MirrorFile
from pipelines.sources.mirror_manifest import MirrorEntry

Columns = Callable[[np.random.Generator, np.ndarray, int], dict[str, pa.Array]]
FLAT_HOURS = (1.0,) * 24
PAI_TASKS = ("tensorflow", "worker", "ps", "evaluator", "chief")
PAI_GPU_TYPES = ("MISC", "T4", "P100", "V100", "V100M32")
USERS = 300  # per trace (assumed)
HELIOS_MAX_RUN_S = 4_320_009  # [V] summary max_run_time_gpu
PHILLY_MAX_RUN_S = 4_240_676


def naive_epoch(text: str) -> int:
    """A naive timestamp read as UTC wall-clock seconds (printed back unchanged with no offset)."""
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


def _labels(rng: np.random.Generator, n: int, shares: dict[str, float]) -> pa.Array:
    return pa.array(np.asarray(list(shares))[exact_codes(rng, n, shares)])


@cache
def _user_names() -> pa.Array:
    """User names ``u`` + 4 hex digits, a fixed table so that every chunk draws from the same users."""
    return pa.array([f"u{(k * 40_503 + 12_345) % 65_536:04x}" for k in range(USERS)])


def _users(rng: np.random.Generator, n: int) -> pa.Array:
    return _user_names().take(pa.array(zipf_picks(rng, USERS, cal.USER_ZIPF_EXPONENT, n)))


def _run_times(rng: np.random.Generator, shape: tuple[float, float], cap: int, n: int) -> np.ndarray:
    """Integer run times: lognormal ``(median, sigma)``, at least 1 s, at most ``cap``."""
    return np.clip(np.rint(lognormal(rng, shape[0], shape[1], n)), 1, cap).astype(np.int64)


def _naive_times(submit: np.ndarray, queue: np.ndarray, run: np.ndarray) -> dict[str, pa.Array]:
    """The last columns of Helios and Philly: naive times (start = submit + queue), duration and queue."""
    start = submit + queue
    return {
        "submit_time": times(submit, None),
        "start_time": times(start, None),
        "end_time": times(start + run, None),
        "duration": ints(run),
        "queue": ints(queue),
    }


def helios_columns(rng: np.random.Generator, submit: np.ndarray, first_id: int) -> dict[str, pa.Array]:
    n = len(submit)
    is_gpu = rng.random(n) < cal.PUBLISHED_HELIOS_GPU_JOBS / cal.PUBLISHED_HELIOS_ROWS
    gpu = np.where(is_gpu, choice(rng, cal.HELIOS_GPU_NUM, n), 0)
    state = np.where(
        is_gpu,
        np.asarray(_labels(rng, n, cal.HELIOS_GPU_STATE_SHARE)),
        np.asarray(_labels(rng, n, cal.HELIOS_CPU_STATE_SHARE)),
    )
    queue = waits(rng, cal.HELIOS_QUEUE, n)
    run = _run_times(rng, cal.HELIOS_RUN, HELIOS_MAX_RUN_S, n)
    return {
        "job_id": ints(first_id + np.arange(n)),
        "user": _users(rng, n),
        "gpu_num": ints(gpu),
        "cpu_num": ints(np.where(is_gpu, gpu * 4, choice(rng, cal.CPU_JOB_CPUS, n))),
        "node_num": ints(np.maximum(-(-gpu // cal.GPUS_PER_NODE), 1)),
        "state": pa.array(state),
        **_naive_times(submit, queue, run),
    }


def philly_columns(rng: np.random.Generator, submit: np.ndarray, first_id: int) -> dict[str, pa.Array]:
    n = len(submit)
    queue = waits(rng, cal.PHILLY_QUEUE, n)
    run = _run_times(rng, cal.PHILLY_RUN, PHILLY_MAX_RUN_S, n)
    ids = pa.array([f"application_1506638472019_{first_id + i}" for i in range(n)])
    return {
        "job_id": ids,
        "user": _users(rng, n),
        "gpu_num": ints(choice(rng, cal.PHILLY_GPU_NUM, n)),
        "state": _labels(rng, n, cal.PHILLY_STATE_SHARE),
        **_naive_times(submit, queue, run),
    }


def pai_columns(rng: np.random.Generator, start: np.ndarray, first_id: int) -> dict[str, pa.Array]:
    n = len(start)
    no_gpu = rng.random(n) >= cal.PUBLISHED_PAI_GPU_JOBS / cal.PUBLISHED_PAI_ROWS
    run = np.round(lognormal(rng, cal.PAI_RUN[0], cal.PAI_RUN[1], n), 3)
    return {
        "job_name": random_ids(rng, n, "", 24, HEX),
        "task_name": pa.array(np.asarray(PAI_TASKS)[rng.integers(0, len(PAI_TASKS), n)]),
        "inst_num": ints(choice(rng, ((1, 2, 4, 8, 16), (0.7, 0.1, 0.1, 0.05, 0.05)), n)),
        "status": _labels(rng, n, cal.PAI_STATUS_SHARE),
        "start_time": decimals(start, 1),
        "end_time": decimals(start + run, 3),
        "plan_cpu": decimals(choice(rng, ((100, 200, 400, 600, 800, 1200, 1600), (1,) * 7), n), 1),
        "plan_mem": decimals(rng.uniform(1, 120, n), 3),
        "plan_gpu": decimals(choice(rng, cal.PAI_PLAN_GPU, n), 1, mask=no_gpu),
        "gpu_type": pa.array(np.asarray(PAI_GPU_TYPES)[rng.integers(0, len(PAI_GPU_TYPES), n)], mask=no_gpu),
        "wait_time": decimals(waits(rng, cal.PAI_QUEUE, n), 1),
        "duration": decimals(run, 3),
    }


@dataclass(frozen=True)
class PreviousWorkTrace:
    family: str
    file_name: str
    published_rows: int
    window: tuple[int, int]
    columns: Columns
    header: tuple[str, ...]

    @property
    def note(self) -> str:
        return (
            "synthetic; the header is ASSUMED (not verified upstream): invented around the column names "
            f"the upstream notebook uses ({', '.join(self.header)})"
        )


def previous_work_traces() -> tuple[PreviousWorkTrace, ...]:
    helios = tuple(naive_epoch(t) for t in cal.HELIOS_WINDOW)
    philly = tuple(naive_epoch(t) for t in cal.PHILLY_WINDOW)
    return (
        PreviousWorkTrace("acme__helios_jobs", "helios_trace.csv", cal.PUBLISHED_HELIOS_ROWS, helios,
                          helios_columns, ("job_id", "user", "gpu_num", "cpu_num", "node_num", "state",
                                           "submit_time", "start_time", "end_time", "duration", "queue")),
        PreviousWorkTrace("acme__philly_jobs", "philly_trace.csv", cal.PUBLISHED_PHILLY_ROWS, philly,
                          philly_columns, ("job_id", "user", "gpu_num", "state", "submit_time", "start_time",
                                           "end_time", "duration", "queue")),
        PreviousWorkTrace("acme__pai_jobs", "pai_trace.csv", cal.PUBLISHED_PAI_ROWS, cal.PAI_WINDOW_S,
                          pai_columns, ("job_name", "task_name", "inst_num", "status", "start_time",
                                        "end_time", "plan_cpu", "plan_mem", "plan_gpu", "gpu_type",
                                        "wait_time", "duration")),
    )  # fmt: skip


def write_previous_work(root: Path, params: SampleParams, progress: Progress) -> dict[str, MirrorEntry]:
    entries: dict[str, MirrorEntry] = {}
    for trace in previous_work_traces():
        target = fixed_file(trace.family, trace.file_name)
        rng = stream(params.seed, f"acme/{trace.family}")
        clock = Clock(trace.window[0], trace.window[1], FLAT_HOURS)
        next_id = 1
        with MirrorFile(root, target.mirror_path, trace.header) as out:
            for submit in arrival_chunks(rng, clock, params.rows(trace.published_rows), cal.CHUNK_ROWS):
                columns = trace.columns(rng, submit, next_id)
                if tuple(columns) != trace.header:
                    raise AssertionError(
                        f"{trace.file_name}: columns {tuple(columns)} differ from its header"
                    )
                out.write(csv_rows(columns))
                next_id += len(submit)
        progress(f"{target.mirror_path}: {out.lines - 1:,} rows (header assumed)")
        entries[target.mirror_path] = out.written.entry("synthetic", unverified_layout=True, note=trace.note)
    return entries
