"""Trace transforms and their fidelity checks on drawn data: reproducible from the seed, at the target rate
and shape within the stated tolerance, exact length multipliers, and checks that fail when the trace is not
what the transform promised."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pipelines.export.fidelity import fidelity_checks
from pipelines.export.transforms import (
    TransformError,
    TransformSpec,
    gap_model,
    redraw_arrivals,
    scale_tokens,
)

N = 4000


def source(seed: int = 7, shape: float = 0.5, rate: float = 2.0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    arrivals = np.cumsum(rng.gamma(shape, 1 / (rate * shape), N))
    return {
        "arrival_s": arrivals,
        "request_tokens": rng.integers(0, 3000, N),
        "response_tokens": rng.integers(0, 800, N),
    }


def transformed(spec: TransformSpec, src: dict[str, np.ndarray]):
    model = gap_model(src["arrival_s"], spec) if spec.redraws_gaps else None
    written = {
        "arrival_s": redraw_arrivals(src["arrival_s"], model, spec.seed) if model else src["arrival_s"],
        "request_tokens": scale_tokens(src["request_tokens"], spec.input_scale),
        "response_tokens": scale_tokens(src["response_tokens"], spec.output_scale),
    }
    return model, written


def test_the_seed_decides_the_arrivals() -> None:
    src = source()
    spec = TransformSpec(seed=3, rate_scale=2.0)
    a, b = transformed(spec, src)[1], transformed(spec, src)[1]
    c = transformed(dataclasses.replace(spec, seed=4), src)[1]
    assert np.array_equal(a["arrival_s"], b["arrival_s"]) and not np.array_equal(
        a["arrival_s"], c["arrival_s"]
    )
    assert a["arrival_s"][0] == src["arrival_s"][0] and (np.diff(a["arrival_s"]) >= 0).all()


@pytest.mark.parametrize(("rate_scale", "burstiness"), [(2.0, None), (None, 4.0), (0.5, 1.0), (3.0, 0.3)])
def test_rate_and_shape_come_out_within_tolerance(rate_scale: float | None, burstiness: float | None) -> None:
    src = source()
    spec = TransformSpec(seed=11, rate_scale=rate_scale, burstiness=burstiness)
    model, written = transformed(spec, src)
    assert model is not None
    assert model.shape == pytest.approx(burstiness if burstiness else model.source_shape)
    assert model.mean_gap_s == pytest.approx(model.source_mean_gap_s / (rate_scale or 1.0))
    checks = {c.name: c for c in fidelity_checks(spec, src, written, model)}
    assert all(c.passed for c in checks.values()), checks
    assert checks["rate"].target == pytest.approx(1 / model.mean_gap_s)


def test_checks_fail_when_the_trace_is_not_the_target() -> None:
    src = source()
    spec = TransformSpec(seed=1, burstiness=4.0)
    model, _ = transformed(spec, src)
    untouched = {**src}  # the source's bursty arrivals, presented as the re-drawn ones
    checks = {c.name: c for c in fidelity_checks(spec, src, untouched, model)}
    assert not checks["burstiness"].passed and checks["rate"].passed
    shifted = {**src, "request_tokens": src["request_tokens"] * 2}  # lengths doubled without saying so
    assert not {c.name: c for c in fidelity_checks(TransformSpec(), src, shifted, None)}[
        "input_lengths"
    ].passed


def test_length_multipliers_are_exact() -> None:
    tokens = np.array([0, 1, 2, 3, 10, 4095])
    assert scale_tokens(tokens, 0.5).tolist() == [0, 1, 1, 2, 5, 2048]  # half to even, at least 1, 0 stays 0
    assert scale_tokens(tokens, 2.0).tolist() == [0, 2, 4, 6, 20, 8190]
    assert scale_tokens(tokens, 1.0).tolist() == tokens.tolist()


def test_bad_factors_and_too_few_requests_are_refused() -> None:
    with pytest.raises(TransformError, match="--rate-scale must be a positive number"):
        TransformSpec(rate_scale=0)
    with pytest.raises(TransformError, match="at least 3 requests"):
        gap_model(np.array([0.0, 1.0]), TransformSpec(rate_scale=2))
