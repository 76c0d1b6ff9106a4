"""Seeded random streams and the few sampling shapes the sample uses (exact shares, lognormals, Zipf users).

Every file draws from its own stream, keyed by the seed and a stable name, so changing how one file is
generated never shifts the bytes of another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import numpy as np


def stream(seed: int, name: str) -> np.random.Generator:
    """A generator for one named purpose: ``default_rng`` of ``(seed, sha256(name))``."""
    key = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big")
    return np.random.default_rng(np.random.SeedSequence([seed, key]))


def exact_counts(n: int, shares: Mapping[str, float], minimum: Mapping[str, int] | None = None) -> list[int]:
    """Counts per label summing to ``n``: largest-remainder rounding of ``shares`` (normalised), then the
    ``minimum`` per label is taken from the largest labels when ``n`` is big enough to give it."""
    labels = list(shares)
    weights = np.array([shares[k] for k in labels], dtype=float)
    raw = weights / weights.sum() * n
    counts = np.floor(raw).astype(np.int64)
    order = np.argsort(-(raw - counts), kind="stable")
    counts[order[: n - int(counts.sum())]] += 1
    for label, least in (minimum or {}).items():
        i = labels.index(label)
        while counts[i] < least and counts.max() > least + 1:
            counts[int(np.argmax(counts))] -= 1
            counts[i] += 1
    return [int(c) for c in counts]


def exact_codes(
    rng: np.random.Generator, n: int, shares: Mapping[str, float], minimum: Mapping[str, int] | None = None
) -> np.ndarray:
    """``n`` label codes (indexes into ``list(shares)``) with exact counts, in random order."""
    counts = exact_counts(n, shares, minimum)
    codes = np.repeat(np.arange(len(counts), dtype=np.int8), counts)
    return rng.permutation(codes)


def choice(rng: np.random.Generator, shape: tuple[Sequence[int], Sequence[float]], size: int) -> np.ndarray:
    """Draws from a ``(choices, weights)`` shape."""
    choices, weights = shape
    p = np.asarray(weights, dtype=float)
    return rng.choice(np.asarray(choices, dtype=np.int64), size=size, p=p / p.sum())


def lognormal(rng: np.random.Generator, median: float | np.ndarray, sigma: float, size: int) -> np.ndarray:
    return np.asarray(median) * np.exp(sigma * rng.standard_normal(size))


def waits(rng: np.random.Generator, model: tuple[float, float, float, float], size: int) -> np.ndarray:
    """Integer waits in seconds: a share at 0 s, a share at 1 s, the rest a lognormal tail (≥ 2 s)."""
    p_zero, p_one, median, sigma = model
    u = rng.random(size)
    tail = np.maximum(np.rint(lognormal(rng, median, sigma, size)), 2)
    return np.where(u < p_zero, 0, np.where(u < p_zero + p_one, 1, tail)).astype(np.int64)


def zipf_picks(rng: np.random.Generator, pool: int, exponent: float, size: int) -> np.ndarray:
    """Indexes into a pool of ``pool`` items, item ``k`` drawn with weight ``1 / (k+1)**exponent``."""
    w = 1.0 / np.arange(1, pool + 1, dtype=float) ** exponent
    return rng.choice(pool, size=size, p=w / w.sum())
