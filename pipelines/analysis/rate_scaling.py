"""Request-rate scaling: what a trace looks like replayed ``s`` times faster.

Replaying at speed ``s`` divides every arrival time by ``s`` (BurstGPT's own replay, ``Timestamp / scale``;
``trace-warehouse export --speed``; any load generator fed the trace). That multiplies the rate by ``s``
and leaves the inter-arrival CV — and a Gamma fit's shape, vLLM's ``--burstiness`` — unchanged, so what a
server sees change is how many requests land in one second of the replay: at speed ``s``, one replayed
second holds the requests of ``s`` seconds of the trace. Per speed factor: the mean, median, 99th
percentile and peak of requests per replayed second, their CV, the index of dispersion (variance ÷ mean:
1 at every speed for a Poisson process; a renewal process with Gamma shape ``k`` tends to ``1/k``; growth
with the speed factor is burstiness on longer time scales, e.g. the daily rhythm, that one Gamma fit does
not carry) and the share of replayed seconds without a request. The trace's clock has 1-s resolution, so
factors are whole numbers and a replayed second is a whole block of trace seconds, counted from the
trace's second 0 (a multiple of ``s``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SPEED_FACTORS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


@dataclass(frozen=True)
class ReplaySeconds:
    """Requests per replayed second at one speed factor, over the span from the first to the last request."""

    speed_factor: int
    requests: int
    replay_seconds: int  # replayed seconds from the one holding the first request to the one holding the last
    mean: float
    p50: int  # quantiles: the inverted empirical CDF (numpy's 'inverted_cdf'), empty seconds included
    p99: int
    peak: int
    cv: float
    index_of_dispersion: float
    idle_share: float


def replay_seconds(seconds: np.ndarray, speed_factor: int) -> ReplaySeconds:
    """``seconds``: whole trace seconds of the arrivals, sorted ascending (repeats are separate requests)."""
    s = np.asarray(seconds, dtype=np.int64)
    if len(s) == 0:
        raise ValueError("no arrivals")
    if (np.diff(s) < 0).any():
        raise ValueError("arrival seconds must be sorted")
    if speed_factor < 1 or int(speed_factor) != speed_factor:
        raise ValueError(f"speed factor {speed_factor!r}: a whole number >= 1 (the clock has 1-s resolution)")
    bins = s // speed_factor
    ends = np.append(np.flatnonzero(np.diff(bins)) + 1, len(bins))
    counts = np.diff(np.append(0, ends))  # requests in each non-empty replayed second
    total = int(bins[-1] - bins[0] + 1)
    idle = total - len(counts)
    mean = len(s) / total
    var = float((counts.astype(np.float64) ** 2).sum()) / total - mean**2
    var = max(var, 0.0)
    ordered = np.sort(counts)

    def quantile(q: float) -> int:
        rank = max(int(np.ceil(q * total)), 1)  # 1-based rank among all replayed seconds
        return 0 if rank <= idle else int(ordered[rank - idle - 1])

    return ReplaySeconds(
        speed_factor=int(speed_factor),
        requests=len(s),
        replay_seconds=total,
        mean=mean,
        p50=quantile(0.5),
        p99=quantile(0.99),
        peak=int(ordered[-1]),
        cv=float(np.sqrt(var) / mean),
        index_of_dispersion=var / mean,
        idle_share=idle / total,
    )
