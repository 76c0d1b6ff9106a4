"""The utilization CDFs merged from per-partition histograms, on the warehouse the CLI built from the sample:
every percentile read off ``analysis.utilization_cdf`` lies in the bin that holds the exact one (computed here
from ``marts.fct_node_metric`` with DuckDB's ``quantile_disc``), so it is exact to within ``grid_error``."""

from __future__ import annotations

import math

from tests.e2e.cli import query
from tests.e2e.conftest import BuiltSample

FRACTIONS = (0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99)


def exact_percentiles(built_sample: BuiltSample) -> dict[tuple[str, str], list[float]]:
    rows = query(
        built_sample.warehouse,
        f"""
        select c.cluster_name, f.metric, quantile_disc(f.value * g.scale, {list(FRACTIONS)})
        from marts.fct_node_metric f
        join marts.dim_cluster c using (cluster_key)
        join analysis.utilization_grid g using (metric)
        group by all
        """,
    )
    return {(cluster, metric): values for cluster, metric, values in rows}


def test_percentiles_off_the_cdf_are_within_their_bin(built_sample: BuiltSample) -> None:
    exact = exact_percentiles(built_sample)
    cdf = query(
        built_sample.warehouse,
        "select cluster_name, metric, bin_lower, bin_upper, grid_error, cumulative_share "
        "from analysis.utilization_cdf order by cluster_name, metric, bin_index",
    )
    assert set(exact) == {(c, m) for c, m, *_ in cdf}, "a CDF for every cluster and metric with a grid"
    assert len(exact) >= 10, sorted(exact)
    for (cluster, metric), values in exact.items():
        rows = [r[2:] for r in cdf if (r[0], r[1]) == (cluster, metric)]
        for fraction, value in zip(FRACTIONS, values, strict=True):
            lower, upper, error, _ = next(r for r in rows if r[3] >= fraction - 1e-12)
            lower = -math.inf if lower is None else lower
            upper = math.inf if upper is None else upper
            assert lower - 1e-9 <= value <= upper + 1e-9, (cluster, metric, fraction, value, lower, upper)
            if error is not None:
                assert abs(upper - value) <= error + 1e-9


def test_the_sample_cdfs_say_they_are_synthetic(built_sample: BuiltSample) -> None:
    origins = query(built_sample.warehouse, "select distinct data_origin from analysis.utilization_cdf")
    assert origins == [("synthetic",)]
