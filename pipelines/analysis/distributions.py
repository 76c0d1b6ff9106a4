"""The distributions fitted to BurstGPT, and how far the data are from them. numpy + scipy, no I/O.

- **Gamma inter-arrival times**, location 0: shape ``k`` and scale ``θ`` (seconds). The mean gap is ``kθ``,
  so with ``rate = 1 / mean gap``, ``θ = 1 / (rate · k)`` — the parameterisation of vLLM's benchmark
  (``--burstiness`` is ``k``: ``np.random.gamma(shape=burstiness, scale=1 / (request_rate · burstiness))``)
  and of BurstGPT's own generator (``rng.gamma(gamma_shape, gamma_scale)``). ``k < 1`` is burstier than
  Poisson (``k = 1``), ``k > 1`` more regular; the gaps' CV is ``1 / √k``. Two estimators:
  the **moments** fit (``k = 1 / CV²``, ``θ = mean · CV²``: the Gamma with the window's mean and variance,
  exactly what vLLM's two knobs reproduce) is the one reported as ``shape``/``scale`` and tested by KS;
  the **maximum-likelihood** shape (``ln k − ψ(k) = ln mean(x) − mean(ln x)``, the equation
  ``scipy.stats.gamma.fit(x, floc=0)`` solves; here by Newton's method on every window together, from
  Minka's start, with scipy's digamma/trigamma) is ``shape_mle``. The MLE weighs the smallest gaps most,
  and BurstGPT's 1-s clock cannot resolve them: on Gamma arrivals floored to whole seconds and spread
  again within their second, the moments shape stays within a few percent up to 0.5 requests/s while the
  MLE drifts towards 1 (Poisson) even at 0.1 requests/s for bursty ``k`` (``tests/unit/
  test_fit_distributions.py``). Above ~2 requests/s neither recovers sub-second burstiness.
- **Kolmogorov–Smirnov** distance of each segment's gaps from its (moments) Gamma, with the p-value of the
  Kolmogorov distribution after Stephens' small-sample correction (``Q((√n + 0.12 + 0.11/√n)·D)``; within
  about 0.01 of scipy's exact ``kstest`` from n = 50, and vectorized: the exact distribution costs
  milliseconds per window). The parameters come from the same data, so the p-value is conservative
  (too large); at thousands of gaps any departure is significant and the distance ``D`` is what to read.
- **Lognormal token counts**: ``scipy.stats.lognorm.fit(x, floc=0)`` (maximum likelihood: ``μ`` and
  ``σ`` are the mean and the population standard deviation of ``ln x``); counts are whole tokens, so the
  model of a count ``k`` is the lognormal rounded to the nearest integer, ``P(K ≤ k) = F(k + ½)``.
- **Zipf token counts**: the zeta distribution ``P(K = k) = k^−a / ζ(a)``, ``k ≥ 1`` (numpy's
  ``rng.zipf(a)``, BurstGPT's generator's ``zipf_param``; ``scipy.stats.zipf``), ``a`` by maximum
  likelihood (``scipy.optimize.minimize_scalar`` on ``a·Σ ln k + n·ln ζ(a)``).
- The discrete KS distance of token counts is the largest gap between the empirical and the model CDF
  over every integer (observed or not).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

# Gaps are differences of distinct jittered times; a gap of exactly 0 (never seen) would make ln x infinite.
MIN_GAP_S = 1e-9
ZIPF_A_BOUNDS = (1.0 + 1e-9, 50.0)
_NEWTON_STEPS = 100
_NEWTON_TOLERANCE = 1e-13


@dataclass(frozen=True)
class GammaFits:
    """One entry per segment: gaps ``n``, their mean (s) and CV, the moments shape and scale (s), the
    maximum-likelihood shape, and the KS distance from the moments Gamma with its p-value."""

    n: np.ndarray
    mean: np.ndarray
    cv: np.ndarray
    shape: np.ndarray
    scale: np.ndarray
    shape_mle: np.ndarray
    ks_statistic: np.ndarray
    ks_pvalue: np.ndarray

    @property
    def rate(self) -> np.ndarray:
        """Arrivals per second, ``1 / (shape · scale)`` = 1 / mean gap: vLLM's ``--request-rate``."""
        return 1.0 / (self.shape * self.scale)

    @property
    def scale_mle(self) -> np.ndarray:
        """The MLE's scale: the MLE keeps the mean, ``θ = mean / k``."""
        return self.mean / self.shape_mle


def segment_starts(lengths: np.ndarray) -> np.ndarray:
    """Offsets of consecutive segments of these (positive) lengths in their concatenation."""
    lengths = np.asarray(lengths, dtype=np.int64)
    return np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)


def fit_gamma(gaps: np.ndarray, starts: np.ndarray | None = None) -> GammaFits:
    """Gamma fits (location 0) of the segments ``gaps[starts[i]:starts[i+1]]`` (one segment when
    ``starts`` is None); every segment needs two gaps or more."""
    x = np.maximum(np.asarray(gaps, dtype=np.float64), MIN_GAP_S)
    starts = np.zeros(1, dtype=np.int64) if starts is None else np.asarray(starts, dtype=np.int64)
    n = np.diff(np.append(starts, len(x)))
    if len(x) == 0 or (n < 2).any():
        raise ValueError("every segment needs at least two gaps")
    mean = np.add.reduceat(x, starts) / n
    seg = np.repeat(np.arange(len(starts)), n)
    var = np.add.reduceat((x - mean[seg]) ** 2, starts) / n
    cv = np.sqrt(var) / mean
    shape = np.where(var > 0, mean**2 / np.where(var > 0, var, 1.0), np.nan)  # 1 / CV²
    scale = var / mean  # mean · CV²
    log_x = np.log(x)
    shape_mle = gamma_shape_mle(np.log(mean) - np.add.reduceat(log_x, starts) / n)
    d = _ks_gamma(x, log_x, seg, starts, n, shape, scale)
    return GammaFits(n, mean, cv, shape, scale, shape_mle, d, ks_pvalue(d, n))


def gamma_shape_mle(s: np.ndarray) -> np.ndarray:
    """The shape ``k`` solving ``ln k − ψ(k) = s`` (``s = ln mean − mean ln`` > 0), element-wise: Newton's
    method from Minka's approximation; ``s`` of 0 (all gaps equal) has no finite solution and gives NaN."""
    s = np.asarray(s, dtype=np.float64)
    ok = s > 0
    s_ok = np.where(ok, s, 1.0)
    k = (3.0 - s_ok + np.sqrt((s_ok - 3.0) ** 2 + 24.0 * s_ok)) / (12.0 * s_ok)
    for _ in range(_NEWTON_STEPS):
        f = np.log(k) - special.digamma(k) - s_ok
        step = f / (1.0 / k - special.polygamma(1, k))
        new = np.where(k - step > 0, k - step, k / 2)  # f is convex and decreasing: never leave k > 0
        done = np.all(np.abs(new - k) <= _NEWTON_TOLERANCE * new)
        k = new
        if done:
            break
    return np.where(ok, k, np.nan)


def _ks_gamma(
    x: np.ndarray,
    log_x: np.ndarray,
    seg: np.ndarray,
    starts: np.ndarray,
    n: np.ndarray,
    shape: np.ndarray,
    scale: np.ndarray,
) -> np.ndarray:
    """Per segment, ``sup |ECDF − F|`` against its Gamma (``F`` = regularized lower incomplete gamma).

    Exact, without evaluating ``F`` at every gap (the costly part: ≈0.5 µs a value). One sort orders every
    segment at once: the key ``2·segment + (ln x − min) / (max − min)`` keeps segments apart and, inside
    one, is increasing in ``x``; ``x`` comes back from it to about 1e-9 relative. ``F`` is then evaluated
    at every ``b``-th order statistic (and the last), ``b ≈ √n / 4`` (4 to 64). Inside a block, ``F`` lies
    between its endpoints' values, which bounds the deviation of every point in it; only blocks whose bound
    exceeds the largest deviation found at the endpoints are evaluated point by point (10–40 % of the
    values on Gamma samples of 200 to 10,000)."""
    lo = np.minimum.reduceat(log_x, starts)
    width = np.maximum.reduceat(log_x, starts) - lo
    width = np.where(width > 0, width, 1.0)
    key = 2.0 * seg + (log_x - lo[seg]) / width[seg]
    key.sort()
    xs = np.exp(lo[seg] + (key - 2.0 * seg) * width[seg])
    pos = np.arange(len(x)) - starts[seg]  # 0-based rank within the segment
    size = n[seg]

    def deviation(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = seg[idx]
        cdf = special.gammainc(shape[s], xs[idx] / scale[s])
        return np.maximum((pos[idx] + 1) / size[idx] - cdf, cdf - pos[idx] / size[idx]), cdf

    block = np.clip(2 ** np.round(np.log2(np.sqrt(n) / 4)), 4, 64).astype(np.int64)
    ends = np.flatnonzero((pos % block[seg] == 0) | (pos == size - 1))
    dev, cdf = deviation(ends)
    d = np.maximum.reduceat(dev, np.searchsorted(ends, starts))
    left, right = ends[:-1], ends[1:]
    inner = (seg[left] == seg[right]) & (right - left > 1)
    left, right, cdf_left, cdf_right = left[inner], right[inner], cdf[:-1][inner], cdf[1:][inner]
    # for p strictly between: (p + 1)/n − F(p) ≤ pos(right)/n − F(left), F(p) − p/n ≤ F(right) − (pos(left) + 1)/n
    bound = np.maximum(pos[right] / size[left] - cdf_left, cdf_right - (pos[left] + 1) / size[left])
    open_ = bound > d[seg[left]]
    left, lengths = left[open_], (right - left - 1)[open_]
    if len(left):
        idx = (
            np.repeat(left + 1, lengths)
            + np.arange(lengths.sum())
            - np.repeat(segment_starts(lengths), lengths)
        )
        first = np.flatnonzero(np.diff(seg[idx], prepend=-1))  # idx ascends: each segment is one run
        hit = seg[idx][first]
        d[hit] = np.maximum(d[hit], np.maximum.reduceat(deviation(idx)[0], first))
    return d


def ks_pvalue(d: np.ndarray | float, n: np.ndarray | int) -> np.ndarray:
    """P(D ≥ d) for a sample of ``n`` from the model: the Kolmogorov distribution with Stephens' correction."""
    root = np.sqrt(np.asarray(n, dtype=np.float64))
    return stats.kstwobign.sf((root + 0.12 + 0.11 / root) * np.asarray(d, dtype=np.float64))


# Token counts -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LognormalFit:
    mu: float  # mean of ln tokens
    sigma: float  # population standard deviation of ln tokens
    ks_statistic: float

    @property
    def median(self) -> float:
        return float(np.exp(self.mu))


@dataclass(frozen=True)
class ZipfFit:
    a: float  # exponent: P(k) ∝ k^-a
    ks_statistic: float


def _positive_counts(tokens: np.ndarray) -> np.ndarray:
    k = np.asarray(tokens)
    if len(k) == 0 or (k < 1).any() or (k != np.floor(k)).any():
        raise ValueError("token counts must be whole numbers >= 1 (and at least one)")
    return k.astype(np.int64)


def discrete_ks(tokens: np.ndarray, cdf) -> float:
    """``sup_k |ECDF(k) − cdf(k)|`` over every integer ``k`` for integer data and a CDF on the integers:
    at each observed value ``v``, the empirical CDF against ``cdf(v)`` and, just below it, against
    ``cdf(v − 1)`` (the largest model value before the data jump)."""
    per_value = np.bincount(_positive_counts(tokens))  # token counts are small integers: no sort
    values = np.flatnonzero(per_value)
    counts = per_value[values]
    ecdf = np.cumsum(counts) / counts.sum()
    below = ecdf - counts / counts.sum()
    upper = np.abs(ecdf - cdf(values))
    lower = np.abs(below - cdf(values - 1))
    return float(max(upper.max(), lower.max()))


def fit_lognormal(tokens: np.ndarray) -> LognormalFit:
    k = _positive_counts(tokens)
    sigma, _, scale = stats.lognorm.fit(k.astype(np.float64), floc=0)
    mu = float(np.log(scale))
    d = discrete_ks(k, lambda v: stats.lognorm.cdf(v + 0.5, sigma, scale=scale))
    return LognormalFit(mu, float(sigma), d)


def fit_zipf(tokens: np.ndarray) -> ZipfFit:
    k = _positive_counts(tokens)
    n, sum_log = len(k), float(np.log(k).sum())
    result = optimize.minimize_scalar(
        lambda a: a * sum_log + n * np.log(special.zeta(a)),
        bounds=ZIPF_A_BOUNDS,
        method="bounded",
        options={"xatol": 1e-10},
    )
    a = float(result.x)
    return ZipfFit(a, discrete_ks(k, lambda v: zipf_cdf(v, a)))


def zipf_cdf(k: np.ndarray, a: float) -> np.ndarray:
    """``P(K ≤ k) = 1 − ζ(a, k + 1) / ζ(a)`` (Hurwitz zeta; 0 below 1): ``scipy.stats.zipf.cdf`` in closed
    form — scipy sums the probabilities term by term, milliseconds per value."""
    k = np.asarray(k, dtype=np.float64)
    return np.where(k >= 1, 1.0 - special.zeta(a, np.maximum(k, 1.0) + 1.0) / special.zeta(a), 0.0)
