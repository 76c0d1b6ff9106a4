"""Fidelity checks of a transformed request trace against its source (:mod:`pipelines.export.transforms`):
what a replay user relies on, each with its value, target, tolerance and verdict.

- **lengths**: two-sample Kolmogorov–Smirnov of input and of output lengths against the source's, each
  scaled by its multiplier with the transform's own rounding. Passes when the p-value is at least 0.01.
- **burstiness**: the Gamma shape (moments, ``1 / CV²``) fitted to the written gaps against the target shape.
  The moments estimate of a Gamma shape ``k`` from ``n`` gaps has a standard deviation of about
  ``√(2k(k+1)/n)``; the tolerance is 4 of them.
- **rate**: requests per second over the written span (``(n − 1) / span``) against the target (the source's,
  × ``--rate-scale``). The mean of ``n`` Gamma gaps of shape ``k`` has a relative standard deviation of
  ``1/√(kn)``; the tolerance is 4 of them, relative.

Without a re-draw the arrivals are the source's, and the burstiness and rate targets are the source's own.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

from pipelines.analysis.distributions import fit_gamma
from pipelines.export.transforms import GapModel, TransformSpec, scale_tokens

KS_MIN_PVALUE = 0.01
SIGMAS = 4.0


@dataclass(frozen=True)
class Check:
    name: str
    value: float
    target: float
    tolerance: float
    passed: bool
    description: str

    def to_json(self) -> dict:
        return asdict(self)


def _ks(name: str, source: np.ndarray, written: np.ndarray, factor: float) -> Check:
    expected = scale_tokens(source, factor)
    result = stats.ks_2samp(expected, written)
    return Check(
        name, float(result.pvalue), KS_MIN_PVALUE, 0.0, bool(result.pvalue >= KS_MIN_PVALUE),
        f"two-sample KS p-value of the written {name.split('_')[0]} lengths against the source's × {factor:g} "
        f"(statistic {float(result.statistic):.4f}); passes at p ≥ {KS_MIN_PVALUE}",
    )  # fmt: skip


def _shape_and_rate(arrivals: np.ndarray) -> tuple[float, float, int]:
    gaps = np.diff(np.asarray(arrivals, dtype=np.float64))
    fit = fit_gamma(gaps)
    span = float(arrivals[-1] - arrivals[0])
    return float(fit.shape[0]), (len(gaps) / span if span > 0 else float("nan")), len(gaps)


def fidelity_checks(
    spec: TransformSpec,
    source: dict[str, np.ndarray],
    written: dict[str, np.ndarray],
    model: GapModel | None,
) -> list[Check]:
    """``source``/``written``: ``arrival_s``, ``request_tokens``, ``response_tokens`` of the rows, in order."""
    checks = [
        _ks("input_lengths", source["request_tokens"], written["request_tokens"], spec.input_scale),
        _ks("output_lengths", source["response_tokens"], written["response_tokens"], spec.output_scale),
    ]
    if len(written["arrival_s"]) < 3:
        return checks
    shape, rate, n = _shape_and_rate(written["arrival_s"])
    if model is None:
        target_shape, target_rate, _ = _shape_and_rate(source["arrival_s"])
    else:
        target_shape, target_rate = model.shape, 1.0 / model.mean_gap_s
    shape_tol = SIGMAS * float(np.sqrt(2 * target_shape * (target_shape + 1) / n))
    rate_tol = SIGMAS / float(np.sqrt(target_shape * n))
    checks.append(Check(
        "burstiness", shape, target_shape, shape_tol, bool(abs(shape - target_shape) <= shape_tol),
        f"Gamma shape (1/CV²) of the {n:,} written gaps against the target; tolerance {SIGMAS:g} standard "
        "deviations of the moments estimate, √(2k(k+1)/n)",
    ))  # fmt: skip
    checks.append(Check(
        "rate", rate, target_rate, rate_tol, bool(abs(rate / target_rate - 1) <= rate_tol),
        f"requests per second over the written span against the target; relative tolerance {SIGMAS:g}/√(kn)",
    ))  # fmt: skip
    return checks
