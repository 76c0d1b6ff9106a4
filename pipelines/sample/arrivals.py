"""Arrival clocks: sorted event times over a window, with an hour-of-day rhythm, in bounded chunks.

Counts per hour are drawn once for the whole window (a multinomial over hour bins), so the total is
exact; the times themselves are drawn chunk by chunk, each chunk sorted and later than the one before.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Clock:
    """A window ``[start, end]`` (inclusive, integer seconds) and how arrivals are spread over it.

    ``offset_s`` shifts the clock to the local day used by the rhythm (``+08:00`` → 28,800 for epoch
    seconds; 0 for clocks already counted from local midnight). ``weekend_factor`` applies to days whose
    epoch weekday is Saturday or Sunday (use 1.0 when the clock has no calendar). ``ramp_days`` makes the
    rate grow linearly from ``ramp_floor`` to 1 over the first days of the window.
    """

    start: int
    end: int
    hour_weights: Sequence[float]
    offset_s: int = 0
    weekend_factor: float = 1.0
    ramp_days: float = 0.0
    ramp_floor: float = 1.0

    def bins(self) -> tuple[np.ndarray, np.ndarray]:
        """Hour bins ``[lo, hi)`` covering the window, aligned to the local clock's hours."""
        first = (self.start + self.offset_s) // 3600 * 3600 - self.offset_s
        lo = np.arange(first, self.end + 1, 3600, dtype=np.int64)
        hi = np.minimum(lo + 3600, self.end + 1)
        return np.maximum(lo, self.start), hi

    def weights(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        local = lo + self.offset_s
        w = np.asarray(self.hour_weights, dtype=float)[(local // 3600) % 24] * (hi - lo)
        weekday = (local // 86_400 + 3) % 7  # 1970-01-01 was a Thursday (Monday = 0)
        w = np.where(weekday >= 5, w * self.weekend_factor, w)
        if self.ramp_days > 0:
            days = (lo - self.start) / 86_400
            w = w * np.clip(self.ramp_floor + (1 - self.ramp_floor) * days / self.ramp_days, None, 1.0)
        return w


@dataclass(frozen=True)
class ArrivalPlan:
    """How many arrivals fall in each hour bin, and which bins form each chunk."""

    lo: np.ndarray
    hi: np.ndarray
    counts: np.ndarray
    bounds: tuple[int, ...]  # chunk k covers bins bounds[k]:bounds[k+1]

    @property
    def sizes(self) -> list[int]:
        return [int(self.counts[a:b].sum()) for a, b in zip(self.bounds[:-1], self.bounds[1:], strict=True)]

    def chunks(self, rng: np.random.Generator) -> Iterator[np.ndarray]:
        """The sorted times of each chunk, in order."""
        for a, b in zip(self.bounds[:-1], self.bounds[1:], strict=True):
            c = self.counts[a:b]
            starts = np.repeat(self.lo[a:b], c)
            widths = np.repeat(self.hi[a:b] - self.lo[a:b], c)
            yield np.sort(starts + (rng.random(len(starts)) * widths).astype(np.int64))


def plan_arrivals(rng: np.random.Generator, clock: Clock, n: int, chunk_rows: int) -> ArrivalPlan:
    """Exactly ``n`` arrivals over the clock's window, grouped in chunks of about ``chunk_rows``; every
    chunk is non-empty (when ``n > 0``)."""
    lo, hi = clock.bins()
    w = clock.weights(lo, hi)
    counts = rng.multinomial(n, w / w.sum())
    return ArrivalPlan(lo, hi, counts, tuple(_chunk_bounds(counts, chunk_rows)))


def arrival_chunks(rng: np.random.Generator, clock: Clock, n: int, chunk_rows: int) -> Iterator[np.ndarray]:
    """Exactly ``n`` sorted integer times in ``[clock.start, clock.end]``, in chunks, each no earlier than
    the one before."""
    return plan_arrivals(rng, clock, n, chunk_rows).chunks(rng)


def _chunk_bounds(counts: np.ndarray, chunk_rows: int) -> list[int]:
    """Bin indexes splitting ``counts`` into runs of about ``chunk_rows`` rows (no empty runs)."""
    cum = np.cumsum(counts)
    total = int(cum[-1]) if len(cum) else 0
    if total == 0:
        return [0, 0]
    bounds = [0]
    for target in range(chunk_rows, total, chunk_rows):
        b = int(np.searchsorted(cum, target, side="left")) + 1
        if b > bounds[-1] and b < len(counts) and cum[b - 1] < total:
            bounds.append(b)
    bounds.append(len(counts))
    return bounds


def pin_ends(chunk: np.ndarray, first: int | None, last: int | None) -> np.ndarray:
    """Set a chunk's first and/or last time (keeps it sorted when ``first <= min`` and ``last >= max``)."""
    out = chunk.copy()
    if first is not None and len(out):
        out[0] = first
    if last is not None and len(out):
        out[-1] = last
    return out


def repeat_index(repeat: np.ndarray) -> np.ndarray:
    """Row indexes that make each row flagged in ``repeat`` take the nearest unflagged row before it
    (a flag on row 0 is ignored): ``values[repeat_index(flags)]``."""
    idx = np.where(repeat, 0, np.arange(len(repeat)))
    return np.maximum.accumulate(idx)
