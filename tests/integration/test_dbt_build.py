"""dbt build on the real rows shipped in the repository plus a few synthetic rows: staging to marts.

One warehouse is loaded (real BurstGPT, Kalos and Seren README rows, cluster_summary; synthetic rows for the
other families and the quirks), a tiny quarantine is written, views are created, and `dbt build` runs once
as a subprocess; the tests assert on the result with SQL. The rows, the loader and ``run_dbt`` are in
``tests/support/dbt_runs.py``.
"""

import json
import math
import shutil
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pytest

from benchmarks.cookbook_queries import IDLE_GPU_HOURS_FROM_HOURS, QUERIES
from pipelines.settings import Settings
from tests.conftest import REAL_DIR
from tests.support.dbt_runs import BURST_3, Warehouse, metric_file, run_dbt


@pytest.fixture(scope="module")
def built(fixture_warehouse: Settings) -> tuple[Settings, Warehouse]:
    """The shared build of these rows (tests/integration/conftest.py)."""
    return fixture_warehouse, Warehouse(fixture_warehouse.duckdb_path)


def rows(con: Warehouse, sql: str) -> list[tuple]:
    return con.execute(sql)


def test_every_node_builds_and_passes(built) -> None:
    """How long the build takes is `make bench`'s question, not a test's."""
    _, con = built
    models = {
        r[0] for r in rows(con, "select table_schema || '.' || table_name from information_schema.tables")
    }
    for name in (
        "marts.fct_job",
        "marts.fct_request",
        "marts.fct_node_metric",
        "marts.fct_server_power",
        "marts.dim_date",
        "marts.dim_time_of_day",
        "analysis.requests_per_hour",
        "analysis.gpu_num_cdf",
    ):
        assert name in models


def test_kalos_readme_rows_follow_end_minus_submit(built) -> None:
    _, con = built
    got = rows(
        con,
        """
        select job_id, run_s, reported_duration_s, duration_rule, _data_origin from marts.fct_job
        where job_id in ('dlctk696s0jbvitv', 'dlc1t2ypl09b8qtp') order by run_s""",
    )
    assert got == [
        ("dlctk696s0jbvitv", 8.0, 18.0, "end_minus_submit", "real"),
        ("dlc1t2ypl09b8qtp", 70.0, 82.0, "end_minus_submit", "real"),
    ]
    seren = rows(
        con,
        """
        select f.duration_rule, count(*) from marts.fct_job f join marts.dim_cluster c using (cluster_key)
        where c.cluster_name = 'seren' and f._data_origin = 'real' group by 1""",
    )
    assert seren == [("end_minus_start", 2)]


def test_real_burstgpt_rows_reach_fct_request_exactly(built) -> None:
    _, con = built
    base = "from marts.fct_request f where f.file_number = 1"
    assert rows(
        con, f"select count(*), sum(is_failed::int), sum(request_tokens), sum(response_tokens) {base}"
    ) == [(400, 17, 208_189, 110_612)]
    assert rows(con, f"select distinct _data_origin, release {base}") == [("real", "v1.1")]
    joined = (
        "from marts.fct_request f join marts.dim_model m using (model_key) "
        "join marts.dim_log_type l using (log_type_key) where f.file_number = 1"
    )
    assert rows(con, f"select m.model_name, count(*) {joined} group by 1 order by 1") == [
        ("ChatGPT", 320),
        ("GPT-4", 80),
    ]
    by_log = rows(con, f"select l.log_type, count(*) {joined} group by 1 order by 1")
    assert by_log == [("API log", 2), ("Conversation log", 398)]
    summary = rows(
        con,
        "select requests, failed_requests, request_tokens, response_tokens, published_rows "
        "from analysis.request_file_summary where file_number = 1",
    )
    assert summary == [(400, 17, 208_189, 110_612, 1_429_737.0)]


def test_requests_per_hour_match_the_file(built) -> None:
    _, con = built
    lines = (REAL_DIR / "burstgpt_1_first400.csv").read_text().splitlines()[1:]
    expected = Counter(int(float(line.split(",")[0])) // 3600 for line in lines)
    got = dict(rows(con, "select hour_index, requests from analysis.requests_per_hour where file_number = 1"))
    assert {h: n for h, n in got.items() if n} == dict(expected)
    assert sorted(got) == list(range(min(expected), max(expected) + 1))  # empty hours are rows with 0


def test_quarantined_rows_are_left_out_of_staging(built) -> None:
    _, con = built
    assert rows(con, f"select count(*) from raw.burstgpt__requests where _source_file = '{BURST_3}'") == [
        (3,)
    ]
    assert rows(
        con,
        f"select _row_number from staging.stg_burstgpt__requests where _source_file = '{BURST_3}' order by 1",
    ) == [(2,), (3,)]
    assert rows(con, f"select count(*) from marts.fct_request where _source_file = '{BURST_3}'") == [(2,)]
    assert rows(con, "select count(*) from staging.stg_acme__seren_jobs where job_id = '6000004'") == [(0,)]
    assert rows(con, "select count(*) from raw.acme__seren_jobs where job_id = 6000004") == [(1,)]
    gpu_util = metric_file("seren", "GPU_UTIL").mirror_path
    cells = rows(
        con,
        "select series, value from staging.stg_acme__gpu_metrics "
        f"where _source_file = '{gpu_util}' and _row_number = 2 order by 1",
    )
    assert cells == [("10.140.0.1-0", 99.0), ("10.140.0.1-1", 0.0)]  # 10.140.0.2-7 quarantined, line kept


def test_burstgpt_file_3_day_index_weekday_and_failures(built) -> None:
    _, con = built
    got = rows(
        con,
        f"""
        select day_index, relative_weekday, hour_index, is_failed, session_id is null, request_time_utc
        from marts.fct_request where _source_file = '{BURST_3}' order by _row_number""",
    )
    assert got == [(225, 1, 5400, False, False, None), (225, 1, 5400, True, True, None)]


def test_repeated_job_id_keeps_first_line_and_states_are_grouped(built) -> None:
    _, con = built
    assert rows(
        con,
        "select user_key = (select user_key from marts.dim_user where user_name = 'u1' "
        "and cluster_name = 'seren'), duplicate_rows from marts.fct_job where job_id = '6000001'",
    ) == [(True, 1)]
    states = dict(
        rows(
            con,
            """
        select s.job_state, s.state_group from marts.fct_job f join marts.dim_job_state s using (job_state_key)""",
        )
    )
    assert states["TIMEOUT"] == "failed" and states["NODE_FAIL"] == "failed"
    assert states["RUNNING"] == "other"  # undocumented, kept as its own member
    assert states["Terminated"] == "other"  # PAI status other than Failed, kept
    assert rows(con, "select is_documented from marts.dim_job_state where job_state = 'RUNNING'") == [
        (False,)
    ]
    assert rows(
        con, "select count(*) from marts.dim_job_state where job_state = 'unknown' and job_state_key = '-1'"
    ) == [(1,)]


def test_previous_work_traces_join_the_comparison(built) -> None:
    _, con = built
    got = rows(
        con,
        """
        select c.cluster_name, f.job_id, f.gpu_num, f.cpu_num, f.reported_queue_s, s.job_state, f.source_state
        from marts.fct_job f join marts.dim_cluster c using (cluster_key) join marts.dim_job_state s using (job_state_key)
        where c.cluster_name in ('pai', 'philly', 'helios') order by 1, 2""",
    )
    assert got == [
        ("helios", "h1", 8.0, 48.0, 0.0, "TIMEOUT", "TIMEOUT"),
        ("pai", "j1", 0.5, 6.0, 9.0, "FAILED", "Failed"),
        ("pai", "j2", 8.0, 1.0, 0.0, "Terminated", "Terminated"),
        ("philly", "application_1", 4.0, None, 60.0, "COMPLETED", "Pass"),
        ("philly", "application_2", 1.0, None, 30.0, "CANCELLED", "Killed"),
    ]
    counts = dict(rows(con, "select cluster_name, jobs from analysis.cluster_job_counts"))
    assert counts == {"seren": 5, "kalos": 3, "helios": 1, "philly": 2, "pai": 2}
    assert rows(
        con,
        "select summary_jobs, published_jobs_in_file from analysis.cluster_job_counts "
        "where cluster_name = 'seren'",
    ) == [(1_031_550, 818_327.0)]


def test_gpu_and_node_series_keyed_to_dimensions(built) -> None:
    _, con = built
    gpus = rows(
        con,
        "select cluster_name, node_id, gpu_index from marts.dim_gpu where gpu_index >= 0 order by 1, 2, 3",
    )
    assert gpus == [
        ("kalos", "lingjun-pod9-0016", 0), ("kalos", "lingjun-pod9-0016", 3),
        ("seren", "10.140.0.1", 0), ("seren", "10.140.0.1", 1), ("seren", "10.140.0.2", 7),
    ]  # fmt: skip
    memory = rows(
        con,
        """
        select n.node_id, f.value, f.series from marts.fct_node_metric f join marts.dim_node n using (node_key)
        where f.metric = 'NODE_MEMORY_UTILIZATION' order by f.sample_time_utc""",
    )
    assert memory == [("10.140.0.131", 40.0, "10.140.0.131.1"), ("10.140.0.131", 41.0, "10.140.0.131")]
    repeated = rows(
        con,
        """
        select f.value, f.duplicate_samples from marts.fct_node_metric f join marts.dim_gpu g using (gpu_key)
        where g.node_id = '10.140.0.1' and g.gpu_index = 0 order by f.sample_time_utc""",
    )
    assert repeated == [(99.0, 0), (98.0, 1)]
    pods = rows(con, "select node_id_kind from marts.dim_node where node_id = 'lingjun-pod9-0016'")
    assert pods == [("pod_name",)]
    util = rows(
        con,
        "select samples, p50, published_max from analysis.utilization_percentiles "
        "where cluster_name = 'kalos' and metric = 'NODE_CPU_UTILIZATION'",
    )
    assert util == [(1, 238.9, 238.9)]


def test_node_metric_fact_is_unique_and_accounts_for_every_sample(built) -> None:
    """fct_node_metric is a view over the raw lake: one row per (cluster, metric, node, GPU, time) by
    construction (no dbt data test reads every sample), and every staged sample is either a row or counted
    in a row's duplicate_samples."""
    _, con = built
    grain = "cluster_key, metric, node_key, gpu_key, sample_time_utc"
    assert rows(
        con,
        f"select count(*) from (select {grain} from marts.fct_node_metric group by all having count(*) > 1)",
    ) == [(0,)]
    ((shown, dropped),) = rows(con, "select count(*), sum(duplicate_samples) from marts.fct_node_metric")
    staged = rows(
        con,
        "select (select count(*) from staging.stg_acme__gpu_metrics)"
        " + (select count(*) from staging.stg_acme__node_metrics)",
    )
    assert dropped > 0 and [(shown + dropped,)] == staged


def test_line_and_series_cells_equal_the_staged_samples_counted(built) -> None:
    """int_node_metric_lines and int_node_metric_series take their cells from the load's counts (source
    cells) less the quarantine: they equal the staged samples (quarantined cells left out) counted by line
    and by series, `except all` both ways, and the quarantined cell's line holds one cell fewer than loaded."""
    _, con = built
    samples = (
        "(select * from staging.stg_acme__gpu_metrics union all select * from staging.stg_acme__node_metrics)"
    )
    lines = (
        "select cluster_name, metric_level, metric, _source_file, _row_number, sample_time_utc, _data_origin, "
        "count(*) as cells, _partition from {} group by all"
    )
    series = "select cluster_name, metric_level, metric, series, count(*) as cells, _partition from {} group by all"
    model_lines = lines.replace("count(*) as cells", "cells").replace(" group by all", "")
    model_series = series.replace("count(*) as cells", "cells").replace(" group by all", "")
    for counted, model in (
        (lines.format(samples), model_lines.format("intermediate.int_node_metric_lines")),
        (series.format(samples), model_series.format("intermediate.int_node_metric_series")),
    ):
        assert rows(con, f"select count(*) from ({counted})")[0][0] > 0
        assert rows(con, f"({counted}) except all ({model})") == []
        assert rows(con, f"({model}) except all ({counted})") == []
    gpu_util = metric_file("seren", "GPU_UTIL").mirror_path
    ((loaded, kept),) = rows(
        con,
        "select c.cells, l.cells from cells.acme__gpu_metrics__lines as c "
        "join intermediate.int_node_metric_lines as l using (_source_file, _row_number) "
        f"where c._source_file = '{gpu_util}' and c._row_number = 2",
    )
    assert kept == loaded - 1


def test_binned_utilization_percentiles_come_off_the_cdf(built, tmp_path: Path) -> None:
    """TRACE_UTILIZATION_PERCENTILES=binned: seren's GPU_UTIL samples 0, 51, 98, 99 have the exact
    (interpolated) quartile 38.25 and median 74.5, the discrete ones 0 and 51, whose 0.5 % bins end at 0.5 and
    51.5."""
    settings, _ = built
    copy = replace(settings, warehouse_dir=tmp_path / "warehouse")
    copy.warehouse_dir.mkdir()
    shutil.copyfile(settings.duckdb_path, copy.duckdb_path)
    shutil.copytree(settings.lake_dir, copy.lake_dir)
    query = (
        "select p25, p50, p99, percentile_error, percentile_method from analysis.utilization_percentiles "
        "where cluster_name = 'seren' and metric = 'GPU_UTIL'"
    )
    assert rows(Warehouse(copy.duckdb_path), query) == [(38.25, 74.5, 98.97, 0.0, "exact")]
    select = ["--select", "utilization_percentiles"]
    result = run_dbt(copy, "run", *select, target=tmp_path / "t", TRACE_UTILIZATION_PERCENTILES="binned")
    assert result.returncode == 0, result.stdout[-4000:]
    assert rows(Warehouse(copy.duckdb_path), query) == [(0.5, 51.5, 99.5, 0.5, "binned")]
    # auto (the default) is exact up to var exact_percentiles_up_to samples, binned beyond
    for limit, method in ((1, "binned"), (1_000_000, "exact")):
        result = run_dbt(
            copy, "run", *select, "--vars", f"{{exact_percentiles_up_to: {limit}}}", target=tmp_path / "t",
            TRACE_UTILIZATION_PERCENTILES="auto",
        )  # fmt: skip
        assert result.returncode == 0, result.stdout[-4000:]
        assert rows(Warehouse(copy.duckdb_path), query)[0][-1] == method, limit


def test_token_percentiles_are_numpys_over_the_requests_that_did_not_fail(built) -> None:
    """One percentile state per side returns every fraction in its own column (p50 the median, p99 the tail)."""
    _, con = built
    groups: dict[tuple, list[tuple[int, int]]] = {}
    for file_number, model, log_type, request, response in rows(
        con,
        "select f.file_number, m.model_name, l.log_type, f.request_tokens, f.response_tokens "
        "from marts.fct_request f join marts.dim_model m using (model_key) "
        "join marts.dim_log_type l using (log_type_key) where not f.is_failed",
    ):
        groups.setdefault((file_number, model, log_type), []).append((request, response))
    got = {
        r[:3]: r[3:]
        for r in rows(
            con,
            "select file_number, model_name, log_type, request_tokens_p50, request_tokens_p90, "
            "request_tokens_p99, response_tokens_p50, response_tokens_p90, response_tokens_p99 "
            "from analysis.token_distribution where not_failed_requests > 0",
        )
    }
    assert set(got) == set(groups) and (1, "ChatGPT", "Conversation log") in got
    for key, pairs in groups.items():
        tokens = np.array(pairs, dtype=float)
        want = [np.percentile(tokens[:, side], q) for side in (0, 1) for q in (50, 90, 99)]
        assert got[key] == pytest.approx(want), key


def test_job_duration_percentiles_are_numpys_per_cluster_and_measure(built) -> None:
    _, con = built
    runs: dict[str, list[float]] = {}
    for cluster, run_s in rows(
        con,
        "select c.cluster_name, j.run_s from marts.fct_job j join marts.dim_cluster c using (cluster_key) "
        "where j.is_gpu_job and j.run_s is not null",
    ):
        runs.setdefault(cluster, []).append(run_s)
    got = {
        r[0]: r[1:]
        for r in rows(
            con,
            "select cluster_name, p25_s, p50_s, p75_s, p90_s, p99_s from analysis.job_duration_percentiles "
            "where measure = 'run_s' and gpu_jobs > 0",
        )
    }
    assert set(got) == set(runs) and len(runs) >= 2
    for cluster, values in runs.items():
        want = [np.percentile(values, q) for q in (25, 50, 75, 90, 99)]
        assert got[cluster] == pytest.approx(want), cluster


def test_server_power_types(built) -> None:
    _, con = built
    types = dict(rows(con, "select node_id, server_type from marts.dim_node where has_power"))
    assert types == {"10.140.0.1": "A", "10.140.0.2": "B", "10.140.1.10": "D"}
    assert rows(con, "select server_type, samples from analysis.server_power_by_type order by 1") == [
        ("A", 1),
        ("B", 1),
        ("D", 1),
    ]
    # one sample per type: both percentiles are that sample's power
    assert rows(
        con,
        "select b.server_type, b.p50_sys_total_power_w = p.sys_total_power_w, "
        "b.p95_sys_total_power_w = p.sys_total_power_w from analysis.server_power_by_type b "
        "join marts.fct_server_power p using (server_type) order by 1",
    ) == [("A", True, True), ("B", True, True), ("D", True, True)]


def test_every_dimension_has_its_unknown_member(built) -> None:
    _, con = built
    for dim, key in [
        ("dim_cluster", "cluster_key"),
        ("dim_user", "user_key"),
        ("dim_node", "node_key"),
        ("dim_gpu", "gpu_key"),
        ("dim_model", "model_key"),
        ("dim_log_type", "log_type_key"),
        ("dim_job_type", "job_type_key"),
        ("dim_job_state", "job_state_key"),
    ]:
        assert rows(con, f"select count(*) from marts.{dim} where {key} = '-1'") == [(1,)], dim
    assert rows(con, "select count(*) from marts.dim_date where date_key = -1") == [(1,)]
    assert rows(con, "select count(*) from marts.dim_time_of_day") == [(86_401,)]


def test_unit_tests_pass(built, tmp_path: Path) -> None:
    settings, _ = built
    result = run_dbt(settings, "test", "--select", "test_type:unit", target=tmp_path / "target")
    assert result.returncode == 0, result.stdout[-6000:]
    run = json.loads((tmp_path / "target" / "run_results.json").read_text())
    statuses = Counter(r["status"] for r in run["results"] if r["unique_id"].startswith("unit_test."))
    manifest = json.loads((tmp_path / "target" / "manifest.json").read_text())
    assert len(manifest["unit_tests"]) >= 24
    assert statuses == {"pass": len(manifest["unit_tests"])}


def test_bare_dbt_build_creates_raw_and_quarantine_relations(built, tmp_path: Path) -> None:
    """Without the load asset's views (no trace.duckdb at all) the on-run-start macro makes them."""
    settings, _ = built
    bare = replace(settings, warehouse_dir=tmp_path / "warehouse")
    shutil.copytree(settings.lake_dir, bare.lake_dir)
    result = run_dbt(bare, "run", "--select", "staging", target=tmp_path / "target", start_date="2023-01-01")
    assert result.returncode == 0, result.stdout[-6000:]
    con = Warehouse(bare.duckdb_path)
    assert rows(con, "select count(*) from staging.stg_burstgpt__requests") == [(402,)]
    assert rows(con, "select count(*) from quarantine.acme__seren_jobs") == [(1,)]
    first = rows(
        con,
        "select request_time_utc from staging.stg_burstgpt__requests where _row_number = 2 "
        "and timestamp_s = 5",
    )
    assert str(first[0][0]) == "2022-12-31 16:00:05"
    empty = rows(con, "select count(*) from raw.burstgpt__requests_without_fails")  # no files: empty, typed
    assert empty == [(0,)]


def test_hour_bins_equal_the_samples_counted_one_by_one(built) -> None:
    """The one scan of the samples (int_utilization_hour_bins) and what merges from it equal the fact counted
    sample by sample: utilization_hourly `except all` the hours aggregated from fct_node_metric is empty both
    ways, and each metric's histogram equals the fact's values binned on the seed's grid by exact arithmetic."""
    _, con = built
    hourly = """
        select clusters.cluster_name, samples.metric, samples.metric_level, samples.unit,
            cast(floor(epoch(samples.sample_time_utc) / 3600) as bigint) as hour_index,
            count(*), count_if(samples._data_origin = 'real'), count_if(samples._data_origin = 'synthetic'),
            count_if(samples.value = 0), round(sum(samples.value), 6), round(avg(samples.value), 6),
            max(samples.value), samples._partition
        from marts.fct_node_metric as samples
        inner join marts.dim_cluster as clusters on samples.cluster_key = clusters.cluster_key
        group by all
    """
    mart = """
        select cluster_name, metric, metric_level, unit, hour_index, samples, real_samples, synthetic_samples,
            zero_samples, round(value_sum, 6), round(mean_value, 6), max_value, _partition
        from analysis.utilization_hourly
    """
    assert rows(con, f"select count(*) from ({hourly})")[0][0] > 0
    assert rows(con, f"({hourly}) except all ({mart})") == []
    assert rows(con, f"({mart}) except all ({hourly})") == []

    grids = rows(
        con, "select metric, scale, grid_kind, grid_min, grid_max, bins from analysis.utilization_grid"
    )
    checked = 0
    for metric, scale, kind, low, high, bins in grids:
        for (cluster,) in rows(
            con, f"select distinct cluster_name from analysis.utilization_hourly where metric = '{metric}'"
        ):
            values = rows(con, f"""
                select samples.value, count(*) from marts.fct_node_metric as samples
                inner join marts.dim_cluster as clusters on samples.cluster_key = clusters.cluster_key
                where clusters.cluster_name = '{cluster}' and samples.metric = '{metric}' group by all""")  # fmt: skip
            expected = Counter()
            for value, samples in values:
                expected[_grid_bin(value, scale, kind, low, high, bins)] += samples
            counted = dict(
                rows(con, f"""
                    select bin_index, sum(samples) from analysis.utilization_histogram
                    where cluster_name = '{cluster}' and metric = '{metric}' group by bin_index""")
            )  # fmt: skip
            assert counted == dict(expected), (cluster, metric)
            checked += 1
    assert checked >= 3


def test_idle_gpu_hours_from_the_hours_equal_the_cookbooks_answer_from_the_samples(built) -> None:
    """The docs answer idle GPU-hours per cluster and day from utilization_hourly; the cookbook asks
    fct_node_metric, sample by sample. Both give the same rows."""
    _, con = built

    def idle_hours(sql: str) -> list[tuple]:
        return [(cluster, day, round(hours, 9)) for cluster, day, hours in rows(con, sql)]

    from_samples = idle_hours(next(q.warehouse for q in QUERIES if q.key == "idle_gpu_hours"))
    assert from_samples, "the build holds GPU_UTIL samples"
    assert idle_hours(IDLE_GPU_HOURS_FROM_HOURS) == from_samples


def _grid_bin(value: float, scale: float, kind: str, low: float, high: float, bins: int) -> int:
    """The bin of ``value`` (before ``scale``) on a grid of the seed utilization_grid, by exact arithmetic: the
    value scaled as a fraction (no rounding) on a linear grid, its whole log2 where it is a power of two on a
    log2 grid. -1 below the grid, ``bins`` above it."""
    plotted = Fraction(value) * Fraction(scale)
    if plotted > Fraction(high):
        return bins
    if kind == "log2":
        if plotted <= 0:
            return -1
        position = math.log2(plotted / Fraction(low)) * bins / math.log2(high / low)
    else:
        position = (plotted - Fraction(low)) * bins / (Fraction(high) - Fraction(low))
    return -1 if position < 0 else min(math.floor(position), bins - 1)


def _rebuilt_copy(settings: Settings, tmp_path: Path, select: str) -> Settings:
    """A copy of the built warehouse under ``tmp_path`` with the lake models ``select`` rebuilt: their views
    name their folder, so rebuilt they read the copy's files, which a test may then change."""
    copy = replace(settings, warehouse_dir=tmp_path / "warehouse")
    copy.warehouse_dir.mkdir()
    shutil.copyfile(settings.duckdb_path, copy.duckdb_path)
    shutil.copytree(settings.lake_dir, copy.lake_dir)
    rebuilt = run_dbt(copy, "run", "--select", select, target=tmp_path / "t")
    assert rebuilt.returncode == 0, rebuilt.stdout[-3000:]
    return copy


def test_the_sample_count_test_fails_on_one_wrong_partition(built, tmp_path: Path) -> None:
    """utilization_hour_bins_count_every_sample checks the partitions a build names against the staged
    counts (int_node_metric_series), not by recounting samples: it passes on 2023-07-19 as built, and with one
    bin of that partition off by one it fails with that one row."""
    copy = _rebuilt_copy(built[0], tmp_path, "int_utilization_hour_bins+")
    test = ["test", "--select", "utilization_hour_bins_count_every_sample"]
    test += ["--vars", "{partition_keys: ['2023-07-19']}"]
    passed = run_dbt(copy, *test, target=tmp_path / "t")
    assert passed.returncode == 0, passed.stdout[-3000:]

    bins = copy.lake_dir / "models" / "int_utilization_hour_bins" / "_partition=2023-07-19" / "data_0.parquet"
    duckdb.execute(
        "copy (select * replace (samples + case when row_number() over () = 1 then 1 else 0 end as samples) "
        f"from read_parquet('{bins}')) to '{tmp_path / 'wrong.parquet'}' (format parquet)"
    )
    shutil.move(tmp_path / "wrong.parquet", bins)
    failed = run_dbt(copy, *test, target=tmp_path / "t")
    assert failed.returncode != 0
    assert "Got 1 result" in failed.stdout and "utilization_hour_bins_count_every_sample" in failed.stdout


def test_a_row_wise_model_rebuilds_a_named_partition_from_its_sources(built, tmp_path: Path) -> None:
    """fct_server_power (``row_wise``: each named partition written from its own scan of the model, no window
    table): a partition-wise run puts back the rows a full build wrote in a partition that was emptied."""
    copy = _rebuilt_copy(built[0], tmp_path, "fct_server_power")
    power = sorted((copy.lake_dir / "models" / "fct_server_power").glob("_partition=*/data_0.parquet"))[0]
    rows = f"select * from read_parquet('{power}') order by all"
    built_rows = duckdb.sql(rows).fetchall()
    assert built_rows
    duckdb.execute(f"copy ({rows} limit 0) to '{tmp_path / 'empty.parquet'}' (format parquet)")
    shutil.move(tmp_path / "empty.parquet", power)
    key = power.parent.name.split("=", 1)[1]
    args = ["--select", "fct_server_power", "--vars", f"{{partition_keys: ['{key}']}}"]
    run = run_dbt(copy, "run", *args, target=tmp_path / "t")
    assert run.returncode == 0, run.stdout[-3000:]
    assert duckdb.sql(rows).fetchall() == built_rows


def test_a_whole_model_lake_table_rewrites_every_partition_on_every_run(built, tmp_path: Path) -> None:
    """int_jobs_deduplicated (lake_table_config) lives in the lake behind a view. A run that names no partition
    of it still writes them all: an emptied partition gets its rows back, and a partition whose rows are gone
    (a stale folder) is emptied."""
    copy = _rebuilt_copy(built[0], tmp_path, "int_jobs_deduplicated")
    kind = "select table_type from information_schema.tables where table_name = 'int_jobs_deduplicated'"
    assert Warehouse(copy.duckdb_path).execute(kind) == [("VIEW",)]
    root = copy.lake_dir / "models" / "int_jobs_deduplicated"
    files = sorted(root.glob("_partition=*/data_0.parquet"))
    assert len(files) >= 2
    view = "select * from intermediate.int_jobs_deduplicated order by all"
    built_rows = Warehouse(copy.duckdb_path).execute(view)
    emptied, stale = files[0], root / "_partition=1999-01" / "data_0.parquet"
    stale.parent.mkdir()
    shutil.copyfile(files[1], stale)
    duckdb.execute(
        f"copy (from read_parquet('{emptied}') limit 0) to '{tmp_path / 'empty.parquet'}' (format parquet)"
    )
    shutil.move(tmp_path / "empty.parquet", emptied)
    args = ["--select", "int_jobs_deduplicated", "--vars", "{partition_keys: ['__none__']}"]
    run = run_dbt(copy, "run", *args, target=tmp_path / "t")
    assert run.returncode == 0, run.stdout[-3000:]
    assert Warehouse(copy.duckdb_path).execute(view) == built_rows
    assert duckdb.sql(f"select count(*) from read_parquet('{stale}')").fetchall() == [(0,)]


def test_the_power_line_test_fails_on_a_repeated_line_in_the_partitions_it_checks(
    built, tmp_path: Path
) -> None:
    """fct_server_power_lines_unique checks the partitions a build names: with one line of a partition
    written twice it fails with that one line there, and passes on a partition that was not touched."""
    copy = _rebuilt_copy(built[0], tmp_path, "fct_server_power")
    folders = sorted((copy.lake_dir / "models" / "fct_server_power").glob("_partition=*"))
    first, other = folders[0].name.split("=", 1)[1], "2000-01-01"  # the sample's IPMI lines lie in one day
    power = folders[0] / "data_0.parquet"
    duckdb.execute(
        f"copy (select * from read_parquet('{power}') union all (select * from read_parquet('{power}') limit 1)) "
        f"to '{tmp_path / 'twice.parquet'}' (format parquet)"
    )
    shutil.move(tmp_path / "twice.parquet", power)
    test = ["test", "--select", "fct_server_power_lines_unique", "--vars"]
    failed = run_dbt(copy, *test, f"{{partition_keys: ['{first}']}}", target=tmp_path / "t")
    assert failed.returncode != 0
    assert "Got 1 result" in failed.stdout and "fct_server_power_lines_unique" in failed.stdout
    passed = run_dbt(copy, *test, f"{{partition_keys: ['{other}']}}", target=tmp_path / "t")
    assert passed.returncode == 0, passed.stdout[-3000:]


def test_a_metric_filter_on_the_fact_of_samples_reaches_the_parquet_scans(built) -> None:
    """A filter on the metric of fct_node_metric is pushed into the raw lake's Parquet scans of the samples
    (a file holds one metric, so the row groups of every other metric are skipped), as DuckDB's plan shows."""
    _, con = built
    ((_, text),) = rows(
        con, "explain (format json) select count(*) from marts.fct_node_metric where metric = 'GPU_UTIL'"
    )
    filters: list[str] = []

    def walk(node: dict) -> None:
        if node.get("name") == "READ_PARQUET":
            filters.append(node.get("extra_info", {}).get("Filters", ""))
        for child in node.get("children", []):
            walk(child)

    for node in json.loads(text):
        walk(node)
    assert sum("metric = 'GPU_UTIL'" in f for f in filters) >= 2, filters
