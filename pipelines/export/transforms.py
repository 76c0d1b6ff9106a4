"""Trace transforms of a request export, reproducible from a seed (``--seed``), applied to the rows written
after the window, the filters, ``--max-tokens`` and ``--speed``, before the format's columns are written.

- **Rate** (``--rate-scale X``) and **burstiness** (``--burstiness K``) re-draw the inter-arrival gaps,
  separately: the source's gaps get a Gamma fit (location 0, moments: shape ``k = 1 / CV²``, mean gap
  ``m``, :mod:`pipelines.analysis.distributions`); the new gaps are ``n − 1`` draws of a Gamma of shape ``K``
  (the source's ``k`` without ``--burstiness``) and mean ``m / X`` (``m`` without ``--rate-scale``), from
  ``numpy.random.default_rng(seed)``. The first request keeps its arrival; the requests keep their order,
  lengths and sessions; only their arrivals move. ``--speed`` divides the source's times first (the exact
  pattern, faster), so the target rate is the sped-up source's rate × ``X``.
- **Lengths** (``--input-scale``, ``--output-scale``): every non-zero token count is multiplied and rounded
  half to even, at least 1; zero stays zero (a failed request stays failed); total = request + response.
- **Slicing** by model and log type are the export's filters; ``--session ID`` keeps one BurstGPT session
  (one conversation) and ``--sessions-only`` every row that belongs to a session.

Same seed, same source: the same bytes. :mod:`pipelines.export.fidelity` compares the result with its source.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from pipelines.analysis.distributions import fit_gamma

DEFAULT_SEED = 0


class TransformError(ValueError):
    """A transform that cannot be applied: a bad factor, or too few requests to fit their gaps."""


@dataclass(frozen=True)
class TransformSpec:
    seed: int = DEFAULT_SEED
    rate_scale: float | None = None
    burstiness: float | None = None
    input_scale: float = 1.0
    output_scale: float = 1.0

    def __post_init__(self) -> None:
        for name in ("rate_scale", "burstiness", "input_scale", "output_scale"):
            value = getattr(self, name)
            if value is not None and not (np.isfinite(value) and value > 0):
                raise TransformError(f"--{name.replace('_', '-')} must be a positive number, not {value!r}")

    @property
    def redraws_gaps(self) -> bool:
        return self.rate_scale is not None or self.burstiness is not None

    @property
    def scales_lengths(self) -> bool:
        return self.input_scale != 1.0 or self.output_scale != 1.0

    @property
    def active(self) -> bool:
        return self.redraws_gaps or self.scales_lengths

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GapModel:
    """The Gamma the new gaps are drawn from, and the source's fit it came from."""

    source_shape: float
    source_mean_gap_s: float
    shape: float
    mean_gap_s: float


def gap_model(arrivals: np.ndarray, spec: TransformSpec) -> GapModel:
    gaps = np.diff(np.asarray(arrivals, dtype=np.float64))
    if len(gaps) < 2:
        raise TransformError(
            f"re-drawing arrivals needs at least 3 requests to fit their gaps, not {len(arrivals)}"
        )
    fit = fit_gamma(gaps)
    shape, mean = float(fit.shape[0]), float(fit.mean[0])
    if not np.isfinite(shape):
        raise TransformError(
            "the source's arrivals are evenly spaced: their gaps have no Gamma shape to keep"
        )
    return GapModel(
        shape,
        mean,
        spec.burstiness if spec.burstiness is not None else shape,
        mean / (spec.rate_scale if spec.rate_scale is not None else 1.0),
    )


def redraw_arrivals(arrivals: np.ndarray, model: GapModel, seed: int) -> np.ndarray:
    """The first arrival, then ``n − 1`` Gamma gaps of ``model`` (``default_rng(seed)``)."""
    arrivals = np.asarray(arrivals, dtype=np.float64)
    rng = np.random.default_rng(seed)
    gaps = rng.gamma(model.shape, model.mean_gap_s / model.shape, len(arrivals) - 1)
    return arrivals[0] + np.concatenate([[0.0], np.cumsum(gaps)])


def scale_tokens(tokens: np.ndarray, factor: float) -> np.ndarray:
    """``tokens × factor`` rounded half to even, at least 1 where ``tokens`` > 0; 0 stays 0."""
    tokens = np.asarray(tokens, dtype=np.int64)
    if factor == 1.0:
        return tokens
    scaled = np.maximum(np.rint(tokens * factor), 1).astype(np.int64)
    return np.where(tokens > 0, scaled, 0)
