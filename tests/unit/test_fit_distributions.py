"""The fits recover known parameters from generated samples (fixed seeds), agree with scipy's one-sample
estimators, and the request-rate scaling counts what a replay at speed ``s`` sees.

Tolerances are stated with each test: a few thousand draws estimate a Gamma shape to within a few percent
(its standard error is about ``k·√(2/n)`` for small ``k``), so 10 % leaves room without hiding a wrong
estimator — a method-of-moments or a rate/scale mix-up misses by far more.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from pipelines.analysis.distributions import (
    discrete_ks,
    fit_gamma,
    fit_lognormal,
    fit_zipf,
    gamma_shape_mle,
    ks_pvalue,
    segment_starts,
    zipf_cdf,
)
from pipelines.analysis.fit_tables import RequestGroup, arrival_fit_rows, token_fit_rows
from pipelines.analysis.rate_scaling import replay_seconds

SHAPE_TOLERANCE = 0.10  # relative
RATE_TOLERANCE = 0.05  # relative


def vllm_intervals(rng: np.random.Generator, rate: float, burstiness: float, n: int) -> np.ndarray:
    """Inter-arrival times as vLLM's benchmark draws them for ``--request-rate rate --burstiness k``."""
    theta = 1.0 / (rate * burstiness)
    return rng.gamma(shape=burstiness, scale=theta, size=n)


@pytest.mark.parametrize(("shape", "rate"), [(0.5, 2.0), (2.0, 0.1), (1.0, 5.0)])
def test_gamma_fit_recovers_vllms_burstiness_and_rate(shape: float, rate: float) -> None:
    gaps = vllm_intervals(np.random.default_rng(20261202), rate, shape, 4000)
    fit = fit_gamma(gaps)
    assert fit.shape[0] == pytest.approx(shape, rel=SHAPE_TOLERANCE)
    assert fit.shape_mle[0] == pytest.approx(shape, rel=SHAPE_TOLERANCE)
    assert fit.rate[0] == pytest.approx(rate, rel=RATE_TOLERANCE)
    # vLLM's parameterisation: scale = 1 / (rate × shape), and a good fit is not rejected
    assert fit.scale[0] == pytest.approx(1.0 / (fit.rate[0] * fit.shape[0]), rel=1e-12)
    assert fit.ks_pvalue[0] > 0.01
    assert fit.cv[0] == pytest.approx(1 / np.sqrt(shape), rel=SHAPE_TOLERANCE)


def test_many_windows_at_once_equal_scipys_fit_and_kstest_of_each() -> None:
    rng = np.random.default_rng(7)
    parts = [vllm_intervals(rng, r, k, n) for k, r, n in [(0.5, 2.0, 3000), (2.0, 0.1, 200), (1.3, 1.0, 49)]]
    fits = fit_gamma(np.concatenate(parts), segment_starts([len(p) for p in parts]))
    for i, part in enumerate(parts):
        shape, loc, scale = stats.gamma.fit(part, floc=0)
        assert (fits.shape_mle[i], fits.scale_mle[i], loc) == (
            pytest.approx(shape, rel=1e-7),
            pytest.approx(scale, rel=1e-7),
            0,
        )
        assert fits.shape[i] == pytest.approx(part.mean() ** 2 / part.var(), rel=1e-9)  # moments: 1 / CV²
        exact = stats.kstest(part, "gamma", args=(fits.shape[i], 0, fits.scale[i]))
        assert fits.ks_statistic[i] == pytest.approx(exact.statistic, abs=1e-9)
        assert fits.ks_pvalue[i] == pytest.approx(exact.pvalue, abs=0.02)  # Stephens' approximation


def test_the_bounded_ks_search_finds_scipys_distance_in_windows_of_every_size() -> None:
    """The KS distance skips blocks of order statistics whose bound cannot beat the best so far: on windows
    of 2 to 20,000 gaps, good fits and two-regime misfits alike, it equals scipy's exact statistic."""
    rng = np.random.default_rng(12)
    sizes = [2, 3, 17, 64, 65, 300, 1000, 5000, 20000, *rng.integers(2, 4000, 40)]
    parts = [rng.gamma(rng.uniform(0.2, 3.0), 1.0, n) for n in sizes]
    parts += [np.concatenate([rng.gamma(4, 0.1, n), rng.gamma(4, 5.0, n)]) for n in (20, 700, 6000)]
    fits = fit_gamma(np.concatenate(parts), segment_starts([len(p) for p in parts]))
    for i, part in enumerate(parts):
        exact = stats.kstest(part, "gamma", args=(fits.shape[i], 0, fits.scale[i])).statistic
        assert fits.ks_statistic[i] == pytest.approx(exact, abs=1e-9), len(part)


def test_a_wrong_model_is_rejected_and_degenerate_input_refused() -> None:
    rng = np.random.default_rng(3)
    # two regimes in one window: no single Gamma fits them
    mixed = np.concatenate([vllm_intervals(rng, 10.0, 4.0, 2000), vllm_intervals(rng, 0.05, 4.0, 2000)])
    assert fit_gamma(mixed).ks_pvalue[0] < 1e-6
    assert np.isnan(gamma_shape_mle(np.array([0.0, -1.0]))).all()  # equal gaps: no finite shape
    with pytest.raises(ValueError, match="two gaps"):
        fit_gamma(np.array([1.0, 2.0, 3.0]), np.array([0, 2]))
    assert ks_pvalue(0.0, 100) == pytest.approx(1.0)


def test_lognormal_fit_recovers_median_and_sigma_of_rounded_token_counts() -> None:
    rng = np.random.default_rng(11)
    tokens = np.maximum(np.rint(600 * np.exp(1.1 * rng.standard_normal(5000))), 1)
    fit = fit_lognormal(tokens)
    assert fit.median == pytest.approx(600, rel=0.05)
    assert fit.sigma == pytest.approx(1.1, rel=0.05)
    assert fit.ks_statistic < 0.03
    assert fit_zipf(tokens).ks_statistic > 0.3  # a Zipf law does not describe them


@pytest.mark.parametrize("a", [1.5, 2.2])
def test_zipf_fit_recovers_the_exponent_of_burstgpts_generator(a: float) -> None:
    tokens = np.random.default_rng(5).zipf(a, 5000)  # BurstGPT's generator: rng.zipf(a=zipf_param)
    fit = fit_zipf(tokens)
    assert fit.a == pytest.approx(a, rel=0.03)
    assert fit.ks_statistic < 0.03
    assert fit_lognormal(tokens).ks_statistic > fit.ks_statistic


def test_discrete_ks_counts_integers_the_data_skip_and_zipf_cdf_is_scipys() -> None:
    k = np.array([1, 2, 5, 100, 5000])
    assert zipf_cdf(k, 1.3) == pytest.approx(stats.zipf.cdf(k, 1.3), abs=1e-12)
    # data only at 1 and 10: the model's mass on 2..9 shows just below 10
    data = np.array([1] * 50 + [10] * 50)
    uniform = lambda v: np.clip(np.asarray(v, dtype=float) / 10, 0, 1)  # noqa: E731
    assert discrete_ks(data, uniform) == pytest.approx(0.4)  # ECDF 0.5 vs F(9) = 0.9
    with pytest.raises(ValueError, match="whole numbers"):
        fit_lognormal(np.array([0, 3]))


def _group(seconds: np.ndarray, offsets: np.ndarray, real: np.ndarray | None = None) -> RequestGroup:
    n = len(seconds)
    return RequestGroup(
        "GPT-4",
        "API log",
        second=seconds,
        offset_s=offsets,
        is_failed=np.zeros(n, dtype=bool),
        is_real=np.zeros(n, dtype=bool) if real is None else real,
        file_number=np.ones(n, dtype=np.int64),
        request_tokens=np.full(n, 100),
        response_tokens=np.full(n, 10),
    )


def test_windows_are_fitted_from_whole_second_times_and_small_ones_left_out() -> None:
    """Arrivals of a known Gamma process at 0.2 requests/s, floored to BurstGPT's 1-s clock and spread again
    within their second: the hour fits (moments) still recover shape and rate, while the MLE has drifted
    towards 1 (the smallest gaps are lost to the clock); a sparse hour is counted as left out."""
    rng = np.random.default_rng(42)
    times = np.cumsum(vllm_intervals(rng, 0.2, 0.5, 3000))  # ~15,000 s: four hours
    times = times[times < 3 * 3600]
    sparse = 3 * 3600 + np.arange(10) * 60.0  # a fourth hour with 10 requests
    times = np.concatenate([times, sparse])
    seconds = np.floor(times).astype(np.int64)
    offsets = rng.random(len(seconds))
    order = np.lexsort((offsets, seconds))  # arrival order, as read_requests sorts them
    real = np.arange(len(seconds)) < 100  # the first rows are "real": the first hour is mixed
    group = _group(seconds[order], offsets[order], real)
    columns, skipped = arrival_fit_rows(group, "hour")
    assert skipped == 1 and list(columns["window_index"]) == [0, 1, 2]
    assert columns["window_start_s"].tolist() == [0, 3600, 7200]
    assert columns["data_origin"] == ["mixed", "synthetic", "synthetic"]
    assert sum(columns["requests"]) == len(seconds) - 10
    for shape, rate in zip(columns["gamma_shape"], columns["request_rate_per_s"], strict=True):
        # ~700 gaps an hour with CV √2: the mean's standard error is ≈ 5 %, the shape's larger
        assert shape == pytest.approx(0.5, rel=0.2)
        assert rate == pytest.approx(0.2, rel=0.2)
    assert np.median(columns["gamma_shape_mle"]) > 0.55
    assert (columns["same_second_share"] > 0).all()
    with pytest.raises(ValueError, match="arrival order"):
        arrival_fit_rows(_group(seconds, offsets), "hour")


def test_token_fits_skip_failed_requests_and_small_groups() -> None:
    rng = np.random.default_rng(1)
    n = 400
    group = _group(np.arange(n), np.zeros(n))
    tokens = np.maximum(np.rint(300 * np.exp(0.8 * rng.standard_normal(n))), 1).astype(np.int64)
    failed = np.arange(n) % 10 == 0
    group = RequestGroup(
        **{
            **group.__dict__,
            "is_failed": failed,
            "request_tokens": np.where(failed, 0, tokens),
            "response_tokens": np.where(failed, 0, tokens),
        }
    )
    rows, skipped = token_fit_rows(group)
    assert skipped == 0 and [r["tokens"] for r in rows] == ["request", "response"]
    assert rows[0]["requests"] == n - failed.sum() and rows[0]["excluded_requests"] == failed.sum()
    assert rows[0]["better_fit"] == "lognormal" and rows[0]["data_origin"] == "synthetic"
    assert token_fit_rows(group, min_counts=n) == ([], 2)


def test_replay_at_speed_s_counts_s_trace_seconds_per_replayed_second() -> None:
    seconds = np.array([0, 0, 0, 1, 5, 9, 9, 10])
    one = replay_seconds(seconds, 1)  # 11 seconds: 3, 1, 0, 0, 0, 1, 0, 0, 0, 2, 1
    assert (one.replay_seconds, one.peak, one.p50, one.idle_share) == (11, 3, 0, pytest.approx(6 / 11))
    assert one.mean == pytest.approx(8 / 11)
    five = replay_seconds(seconds, 5)  # [0, 5): 4, [5, 10): 3, [10, 15): 1
    assert (five.replay_seconds, five.peak, five.p50, five.p99, five.idle_share) == (3, 4, 3, 4, 0.0)
    assert five.index_of_dispersion == pytest.approx(np.var([4, 3, 1]) / np.mean([4, 3, 1]))
    with pytest.raises(ValueError, match="whole number"):
        replay_seconds(seconds, 1.5)  # type: ignore[arg-type]


def test_a_poisson_process_keeps_dispersion_one_and_a_bursty_one_tends_to_one_over_shape() -> None:
    rng = np.random.default_rng(9)
    poisson = np.floor(np.cumsum(rng.exponential(1.0, 200_000))).astype(np.int64)
    bursty = np.floor(np.cumsum(vllm_intervals(rng, 1.0, 0.25, 200_000))).astype(np.int64)
    for factor in (1, 10, 100):
        assert replay_seconds(poisson, factor).index_of_dispersion == pytest.approx(1.0, abs=0.15)
    assert replay_seconds(bursty, 100).index_of_dispersion == pytest.approx(1 / 0.25, rel=0.2)
