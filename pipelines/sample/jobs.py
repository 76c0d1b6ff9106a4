"""Synthetic AcmeTrace jobs shared by both clusters: sizes, types, states, queue and run times.

A chunk of submit times goes in; per-job attributes come out as numpy arrays. The cluster modules
(``seren_jobs``, ``kalos_jobs``) turn them into their own CSV layouts; :func:`write_job_file` writes a
cluster's file: its real README rows, then the synthetic chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from pipelines.sample import calibration as cal
from pipelines.sample.formatting import csv_rows
from pipelines.sample.params import Progress, SampleParams
from pipelines.sample.paths import fixed_file
from pipelines.sample.real_rows import RealRows, real_rows
from pipelines.sample.sampling import choice, exact_codes, lognormal, stream, waits, zipf_picks
from pipelines.sample.writer import MirrorFile
from pipelines.sources.mirror_manifest import MirrorEntry

FAILED_LIKE = ("FAILED", "TIMEOUT", "NODE_FAIL")
QueueModel = tuple[float, float, float, float]


@dataclass(frozen=True)
class JobProfile:
    """How one cluster's jobs are shaped (all numbers from ``calibration``)."""

    gpu_job_share: float
    gpu_type_share: Mapping[str, float]
    cpu_type_share: Mapping[str, float]
    gpu_state_share: Mapping[str, float]
    state_run_factor: Mapping[str, float]
    cpu_state_share: Mapping[str, float]
    gpu_num: Mapping[str, cal.GpuShape]
    run_median_s: Mapping[str, float]
    cpu_run_median_s: float
    max_run_s: int
    gpu_queue: QueueModel
    cpu_queue: QueueModel
    cpus_per_gpu: int

    def state_factor(self, state: str) -> float:
        """Run-time factor of a GPU job's state (TIMEOUT and NODE_FAIL run like FAILED)."""
        return self.state_run_factor["FAILED" if state in FAILED_LIKE else state]


def seren_profile() -> JobProfile:
    return JobProfile(
        cal.SEREN_GPU_JOB_SHARE, cal.SEREN_GPU_TYPE_SHARE, cal.SEREN_CPU_TYPE_SHARE,
        cal.SEREN_GPU_STATE_SHARE, cal.SEREN_STATE_RUN_FACTOR, cal.SEREN_CPU_STATE_SHARE,
        cal.SEREN_GPU_NUM, cal.SEREN_RUN_MEDIAN_S, cal.CPU_RUN_MEDIAN_S["seren"], cal.SEREN_MAX_RUN_S,
        cal.SEREN_GPU_QUEUE, cal.SEREN_CPU_QUEUE, cal.SEREN_CPUS_PER_GPU,
    )  # fmt: skip


def kalos_profile() -> JobProfile:
    return JobProfile(
        cal.KALOS_GPU_JOB_SHARE, cal.KALOS_GPU_TYPE_SHARE, cal.KALOS_CPU_TYPE_SHARE,
        cal.KALOS_GPU_STATE_SHARE, cal.KALOS_STATE_RUN_FACTOR, cal.KALOS_CPU_STATE_SHARE,
        cal.KALOS_GPU_NUM, cal.KALOS_RUN_MEDIAN_S, cal.CPU_RUN_MEDIAN_S["kalos"], cal.KALOS_MAX_RUN_S,
        cal.KALOS_GPU_QUEUE, cal.KALOS_CPU_QUEUE, cal.KALOS_CPUS_PER_GPU,
    )  # fmt: skip


@dataclass(frozen=True)
class Jobs:
    """One chunk of jobs, every array of the same length, times in epoch seconds."""

    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    gpu_num: np.ndarray
    node_num: np.ndarray
    cpu_num: np.ndarray
    job_type: np.ndarray  # numpy str
    state: np.ndarray  # numpy str

    @property
    def run(self) -> np.ndarray:
        return self.end - self.start

    @property
    def queue(self) -> np.ndarray:
        return self.start - self.submit


def _labels(rng: np.random.Generator, n: int, shares: Mapping[str, float], minimum: int = 1) -> np.ndarray:
    codes = exact_codes(rng, n, shares, dict.fromkeys(shares, minimum))
    return np.asarray(list(shares))[codes]


def sample_jobs(
    rng: np.random.Generator, profile: JobProfile, submit: np.ndarray, force_max_gpu: bool
) -> Jobs:
    """Jobs submitted at ``submit`` (sorted). With ``force_max_gpu`` one job asks for ``MAX_GPU_NUM``."""
    n = len(submit)
    is_gpu = exact_codes(rng, n, {"gpu": profile.gpu_job_share, "cpu": 1 - profile.gpu_job_share}) == 0
    g, c = int(is_gpu.sum()), int((~is_gpu).sum())
    job_type = np.empty(n, dtype="U16")
    state = np.empty(n, dtype="U16")
    job_type[is_gpu] = gpu_types = _labels(rng, g, profile.gpu_type_share)
    job_type[~is_gpu] = _labels(rng, c, profile.cpu_type_share, minimum=0)
    state[is_gpu] = gpu_states = _labels(rng, g, profile.gpu_state_share)
    state[~is_gpu] = _labels(rng, c, profile.cpu_state_share, minimum=0)

    gpu_num = np.zeros(n, dtype=np.int64)
    gpus = np.zeros(g, dtype=np.int64)
    run_median = np.zeros(g)
    for t in profile.gpu_type_share:
        sel = gpu_types == t
        gpus[sel] = choice(rng, profile.gpu_num[t], int(sel.sum()))
        run_median[sel] = profile.run_median_s[t]
    if force_max_gpu and g and not (gpus == cal.MAX_GPU_NUM).any():
        pretrain = np.flatnonzero(gpu_types == "Pretrain")
        gpus[pretrain[0] if len(pretrain) else 0] = cal.MAX_GPU_NUM
    gpu_num[is_gpu] = gpus

    factor = np.array([profile.state_factor(s) for s in gpu_states])
    run = np.zeros(n)
    run[is_gpu] = lognormal(rng, run_median * factor, cal.RUN_SIGMA, g)
    run[~is_gpu] = lognormal(rng, profile.cpu_run_median_s, cal.CPU_RUN_SIGMA, c)
    run = np.clip(np.rint(run), 0, profile.max_run_s).astype(np.int64)

    queue = np.zeros(n, dtype=np.int64)
    queue[is_gpu] = waits(rng, profile.gpu_queue, g)
    queue[~is_gpu] = waits(rng, profile.cpu_queue, c)

    cpu_num = np.where(is_gpu, gpu_num * profile.cpus_per_gpu, choice(rng, cal.CPU_JOB_CPUS, n))
    node_num = np.where(is_gpu, -(-gpu_num // cal.GPUS_PER_NODE), 1)
    start = submit + queue
    return Jobs(submit, start, start + run, gpu_num, node_num, cpu_num, job_type, state)


def user_pool(rng: np.random.Generator, size: int, known: str, digits: str) -> list[str]:
    """``size`` distinct user names ``u`` + 4 characters of ``digits``, the known README user first."""
    width = len(digits) ** 4
    codes = rng.choice(width, size=size, replace=False)
    names = [
        "u" + "".join(digits[(k // len(digits) ** p) % len(digits)] for p in (3, 2, 1, 0)) for k in codes
    ]
    return [known, *[u for u in names if u != known]][:size]


def pick_users(rng: np.random.Generator, pool: list[str], n: int) -> pa.Array:
    return pa.array(pool).take(pa.array(zipf_picks(rng, len(pool), cal.USER_ZIPF_EXPONENT, n)))


@dataclass(frozen=True)
class JobFile:
    """A cluster's job trace: its mirror file, the real README rows it starts with and its user names."""

    family: str
    file_name: str
    readme_rows: str  # a file of ``real_rows``, header included
    columns: tuple[str, ...]
    published_rows: int
    users: int  # size of the user pool, the README rows' user first
    user_digits: str  # the characters of a user name after its ``u``
    note: str | None = None  # the manifest entry's note, if any

    @property
    def stream(self) -> str:
        """The random stream's name: the family with its source as a folder (``acme/seren_jobs``)."""
        return self.family.replace("__", "/", 1)


# (rng, the README rows, the user pool, how many synthetic jobs) -> the columns of each chunk, in order
SyntheticChunks = Callable[[np.random.Generator, RealRows, list[str], int], Iterator[dict[str, pa.Array]]]


def write_job_file(
    root: Path, params: SampleParams, progress: Progress, spec: JobFile, synthetic: SyntheticChunks
) -> dict[str, MirrorEntry]:
    """``spec``'s file: the README rows, then ``synthetic``'s chunks up to the scaled published rows."""
    target = fixed_file(spec.family, spec.file_name)
    real = real_rows(spec.readme_rows)
    if real.columns != list(spec.columns):
        raise ValueError(f"{real.name}: header {real.columns} is not the {spec.family} layout {spec.columns}")
    n_synthetic = params.rows(spec.published_rows, len(real.rows)) - len(real.rows)
    rng = stream(params.seed, spec.stream)
    pool = user_pool(rng, spec.users, real.field(real.rows[0], "user"), spec.user_digits)
    with MirrorFile(root, target.mirror_path, spec.columns) as out:
        for row in real.rows:
            out.write(row)
        for columns in synthetic(rng, real, pool, n_synthetic):
            out.write(csv_rows(columns))
    progress(f"{target.mirror_path}: {out.lines - 1:,} rows ({len(real.rows)} real)")
    extra = {"note": spec.note} if spec.note is not None else {}
    return {target.mirror_path: out.written.entry("mixed", [(2, 1 + len(real.rows))], **extra)}
