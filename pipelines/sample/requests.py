"""BurstGPT request files and their ``without_fails`` twins (releases v1.1 and v2.0).

Files 1–2: ``Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type`` with an integer
Timestamp; file 3 inserts ``Session ID,Elapsed time`` after Timestamp, which prints as a float
(``19440110.0``). ``BurstGPT_1.csv`` starts with the 400 real rows. A failed request is ``0,0,0``; each
twin is its full file minus the failed rows, line for line. Exact duplicate rows and same-second rows
are part of the data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from pipelines.sample import calibration as cal
from pipelines.sample.arrivals import Clock, pin_ends, plan_arrivals, repeat_index
from pipelines.sample.formatting import csv_rows, decimals, ints, uuids
from pipelines.sample.params import Progress, SampleParams
from pipelines.sample.paths import fixed_file
from pipelines.sample.real_rows import BURSTGPT_1_HEAD, real_rows
from pipelines.sample.sampling import stream
from pipelines.sample.writer import MirrorFile, WrittenFile
from pipelines.sources.mirror_manifest import MirrorEntry

COLUMNS_V1 = ("Timestamp", "Model", "Request tokens", "Response tokens", "Total tokens", "Log Type")
COLUMNS_V3 = ("Timestamp", "Session ID", "Elapsed time", *COLUMNS_V1[1:])
MODELS = ("ChatGPT", "GPT-4")
LOG_TYPES = ("API log", "Conversation log")
FAILED_ELAPSED_ZERO_SHARE = 0.6  # assumed: most failed requests report 0 s


@dataclass(frozen=True)
class RequestFile:
    number: int
    tag: str

    @property
    def columns(self) -> tuple[str, ...]:
        return COLUMNS_V3 if self.number == 3 else COLUMNS_V1

    @property
    def pinned(self) -> tuple[int | None, int | None]:
        """Timestamps pinned on the first and last synthetic rows (file 1 continues its real rows)."""
        start, end = cal.REQUEST_CLOCK[self.number]
        return (None, None) if self.number == 1 else (start, end)


REQUEST_FILES = (RequestFile(1, "v1.1"), RequestFile(2, "v1.1"), RequestFile(3, "v2.0"))


@dataclass(frozen=True)
class RowFlags:
    """Whole-file flags of the synthetic rows: exact duplicates of the row before, same second as the
    row before, failed (``0,0,0``). A failed row is never duplicated, a chunk never starts with a copy."""

    duplicate: np.ndarray
    same_second: np.ndarray
    failed: np.ndarray


def request_clock(number: int) -> Clock:
    start, end = cal.REQUEST_CLOCK[number]
    ramp = cal.FILE1_RAMP_DAYS if number == 1 else 0.0
    return Clock(start, end, cal.HOUR_OF_DAY_WEIGHTS, ramp_days=ramp, ramp_floor=cal.FILE1_RAMP_FLOOR)


def draw_flags(rng: np.random.Generator, sizes: list[int], failed: int, duplicates: int) -> RowFlags:
    n = sum(sizes)
    fixed = np.zeros(n, dtype=bool)  # chunk starts, and the last row (its Timestamp may be pinned)
    fixed[np.cumsum([0, *sizes[:-1]])] = True
    fixed[-1] = True
    duplicate = np.zeros(n, dtype=bool)
    duplicate[rng.choice(np.flatnonzero(~fixed), size=duplicates, replace=False)] = True
    next_dup = np.append(duplicate[1:], False)
    fail = np.zeros(n, dtype=bool)
    fail[rng.choice(np.flatnonzero(~duplicate & ~next_dup), size=failed, replace=False)] = True
    same = (rng.random(n) < cal.SAME_SECOND_SHARE) & ~fixed & ~duplicate
    return RowFlags(duplicate, same, fail)


def _per_model(gpt4: np.ndarray, table: Mapping[str, tuple[float, float]], i: int) -> np.ndarray:
    """Item ``i`` of each row's model entry in ``table``."""
    return np.where(gpt4, table["GPT-4"][i], table["ChatGPT"][i])


def _tokens(
    rng: np.random.Generator, gpt4: np.ndarray, shapes: Mapping[str, tuple[float, float]], cap: int
) -> np.ndarray:
    """Lognormal token counts per model (median, sigma), at least 1, capped at the published maximum."""
    z = rng.standard_normal(len(gpt4))
    draws = _per_model(gpt4, shapes, 0) * np.exp(_per_model(gpt4, shapes, 1) * z)
    return np.clip(np.rint(draws), 1, cap).astype(np.int64)


def _sessions(rng: np.random.Generator, conversation: np.ndarray) -> pa.Array:
    """UUID session ids on conversation rows (runs of about ``CONVERSATION_SESSION_MEAN_REQUESTS``
    consecutive conversation rows share one), null (an empty cell) on API rows."""
    rows = np.flatnonzero(conversation)
    new = rng.random(len(rows)) < 1 / cal.CONVERSATION_SESSION_MEAN_REQUESTS
    if len(new):
        new[0] = True
    session = np.cumsum(new) - 1
    ids = uuids(rng, int(new.sum())).take(pa.array(session)).to_numpy(zero_copy_only=False)
    out = np.full(len(conversation), None, dtype=object)
    out[rows] = ids
    return pa.array(out, type=pa.string())


def _elapsed(
    rng: np.random.Generator, gpt4: np.ndarray, response: np.ndarray, failed: np.ndarray
) -> np.ndarray:
    """Whole seconds to the final response: per-token time by model plus a little overhead (short answers
    round to 0); failed requests mostly 0, else up to two minutes."""
    n = len(response)
    per_token = rng.uniform(
        _per_model(gpt4, cal.SECONDS_PER_RESPONSE_TOKEN, 0),
        _per_model(gpt4, cal.SECONDS_PER_RESPONSE_TOKEN, 1),
    )
    ok = np.rint(response * per_token + rng.exponential(0.3, n))
    failed_wait = np.where(rng.random(n) < FAILED_ELAPSED_ZERO_SHARE, 0, rng.integers(1, 121, n))
    return np.where(failed, failed_wait, ok).astype(np.int64)


def request_columns(
    rng: np.random.Generator, spec: RequestFile, ts: np.ndarray, flags: RowFlags
) -> tuple[dict[str, pa.Array], np.ndarray]:
    """The formatted columns of one chunk and its failed-row mask."""
    k, n = spec.number, len(ts)
    ts = ts[repeat_index(flags.same_second)]
    gpt4 = rng.random(n) < cal.GPT4_SHARE[k]
    conversation = rng.random(n) < cal.CONVERSATION_SHARE[k]
    request = np.where(flags.failed, 0, _tokens(rng, gpt4, cal.REQUEST_TOKENS, cal.MAX_REQUEST_TOKENS[k]))
    response = np.where(flags.failed, 0, _tokens(rng, gpt4, cal.RESPONSE_TOKENS, cal.MAX_RESPONSE_TOKENS[k]))
    src = repeat_index(flags.duplicate)  # exact duplicates copy every cell of the row before
    ts, gpt4, conversation, request, response = (a[src] for a in (ts, gpt4, conversation, request, response))
    columns: dict[str, pa.Array] = {"Timestamp": decimals(ts, 1) if k == 3 else ints(ts)}
    if k == 3:
        columns["Session ID"] = _sessions(rng, conversation).take(pa.array(src))
        columns["Elapsed time"] = ints(_elapsed(rng, gpt4, response, flags.failed)[src])
    columns |= {
        "Model": pa.array(np.asarray(MODELS)[gpt4.astype(np.int8)]),
        "Request tokens": ints(request),
        "Response tokens": ints(response),
        "Total tokens": ints(request + response),
        "Log Type": pa.array(np.asarray(LOG_TYPES)[conversation.astype(np.int8)]),
    }
    return columns, flags.failed[src]


@dataclass(frozen=True)
class RealHead:
    """Real rows heading a file: all of them (full file) and those not failed (its twin)."""

    rows: tuple[bytes, ...] = ()
    ok_rows: tuple[bytes, ...] = ()


def real_head(spec: RequestFile) -> RealHead:
    """``BurstGPT_1.csv`` starts with the 400 real rows; the other files have none."""
    if spec.number != 1:
        return RealHead()
    real = real_rows(BURSTGPT_1_HEAD)
    if real.columns != list(COLUMNS_V1):
        raise ValueError(f"{real.name}: header {real.columns} is not the BurstGPT layout {COLUMNS_V1}")
    return RealHead(real.rows, tuple(r for r in real.rows if real.field(r, "Response tokens") != "0"))


def _counts(params: SampleParams, spec: RequestFile, head: RealHead) -> tuple[int, int, int]:
    """Synthetic rows, synthetic failures and synthetic exact duplicates of one file."""
    k = spec.number
    n_real = len(head.rows)
    synthetic = params.rows(cal.PUBLISHED_REQUEST_ROWS[k], n_real) - n_real
    real_failed = n_real - len(head.ok_rows)
    failed = max(round(params.scale * cal.PUBLISHED_FAILED_ROWS[k]), real_failed + cal.MIN_FAILED_ROWS)
    failed = min(failed - real_failed, synthetic // 4)
    duplicates = max(round(cal.DUPLICATE_SHARE[k] * (synthetic - failed)), cal.MIN_DUPLICATE_ROWS)
    return synthetic, failed, min(duplicates, synthetic // 4)


def write_request_pair(
    root: Path, params: SampleParams, spec: RequestFile, head: RealHead
) -> tuple[WrittenFile, WrittenFile]:
    """Write ``BurstGPT_<k>.csv`` and ``BurstGPT_without_fails_<k>.csv`` side by side, chunk by chunk."""
    full_file = fixed_file("burstgpt__requests", f"BurstGPT_{spec.number}.csv")
    twin_file = fixed_file("burstgpt__requests_without_fails", f"BurstGPT_without_fails_{spec.number}.csv")
    synthetic, failed, duplicates = _counts(params, spec, head)
    rng = stream(params.seed, f"burstgpt/{spec.number}")
    plan = plan_arrivals(rng, request_clock(spec.number), synthetic, cal.CHUNK_ROWS)
    flags = draw_flags(rng, plan.sizes, failed, duplicates)
    first, last = spec.pinned
    with (
        MirrorFile(root, full_file.mirror_path, spec.columns) as full,
        MirrorFile(root, twin_file.mirror_path, spec.columns) as twin,
    ):
        full.write(b"".join(head.rows))
        twin.write(b"".join(head.ok_rows))
        offset = 0
        for i, ts in enumerate(plan.chunks(rng)):
            ts = pin_ends(ts, first if i == 0 else None, last if i == len(plan.sizes) - 1 else None)
            chunk = slice(offset, offset + len(ts))
            part = RowFlags(flags.duplicate[chunk], flags.same_second[chunk], flags.failed[chunk])
            columns, fail = request_columns(rng, spec, ts, part)
            full.write(csv_rows(columns))
            twin.write(csv_rows({name: col.filter(pa.array(~fail)) for name, col in columns.items()}))
            offset += len(ts)
    return full.written, twin.written


def write_requests(root: Path, params: SampleParams, progress: Progress) -> dict[str, MirrorEntry]:
    entries: dict[str, MirrorEntry] = {}
    for spec in REQUEST_FILES:
        head = real_head(spec)
        pair = write_request_pair(root, params, spec, head)
        for written, real in zip(pair, (head.rows, head.ok_rows), strict=True):
            origin = written.entry("mixed", [(2, 1 + len(real))]) if real else written.entry("synthetic")
            entries[written.mirror_path] = origin
            progress(f"{written.mirror_path}: {written.lines - 1:,} rows ({len(real)} real)")
    return entries
