"""The fits assets on the dbt build of the fixture rows (tests/integration/conftest.py): the real first 400
rows of BurstGPT_1 (day 0 of the trace) and two synthetic rows of BurstGPT_3.

What is expected is counted independently with SQL on ``marts.fct_request``: one row per model × log type
(and ``all``) × hour / day window with at least ``MIN_ARRIVALS`` requests, each window's request count, and
the rows' origin; the fitted values must be those of a Gamma (positive, ``scale = 1 / (rate · shape)``,
KS distance and p-value in [0, 1]).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

import dagster as dg
import duckdb
import pytest

from pipelines.analysis.fit_tables import (
    ARRIVAL_FITS,
    MIN_ARRIVALS,
    REQUEST_RATE_SCALING,
    TABLES,
    TOKEN_LENGTH_FITS,
    fit_file,
)
from pipelines.analysis.rate_scaling import SPEED_FACTORS
from pipelines.defs.fits import fits_assets
from pipelines.defs.keys import FITS_GROUP, SETTINGS, fits_key
from pipelines.settings import Settings, load_settings

LABELLED = """
select m.model_name, l.log_type, r.*
from marts.fct_request as r
inner join marts.dim_model as m on r.model_key = m.model_key
inner join marts.dim_log_type as l on r.log_type_key = l.log_type_key
"""

# Windows the fits must hold: every (model, log type) and the all × all rollup, per kind, with enough rows.
EXPECTED_WINDOWS = f"""
with labelled as ({LABELLED}),
windows as (
    select kind, width, coalesce(model_name, 'all') as model_name, coalesce(log_type, 'all') as log_type,
        floor(timestamp_s / width) as window_index, count(*) as requests,
        count(*) filter (where _data_origin = 'real') as real_rows
    from labelled, (values ('hour', 3600), ('day', 86400)) as kinds(kind, width)
    group by grouping sets ((kind, width, model_name, log_type, window_index), (kind, width, window_index))
)
select model_name, log_type, kind, cast(window_index as bigint), requests,
    case when real_rows = requests then 'real' when real_rows = 0 then 'synthetic' else 'mixed' end
from windows where requests >= {MIN_ARRIVALS}
order by all
"""


@dataclass(frozen=True)
class Fitted:
    settings: Settings
    metadata: dict[str, dict[str, object]]
    stamp: tuple[int, int]  # trace.duckdb's size and mtime after the first build


def _materialize(settings: Settings) -> dict[str, dict[str, object]]:
    with dg.instance_for_test() as instance:
        result = dg.materialize(fits_assets(), instance=instance, resources={SETTINGS: settings})
    assert result.success
    return {
        e.asset_key.to_user_string(): {k: v.value for k, v in e.materialization.metadata.items()}
        for e in result.get_asset_materialization_events()
    }


def _stamp(settings: Settings) -> tuple[int, int]:
    st = settings.duckdb_path.stat()
    return st.st_size, st.st_mtime_ns


@pytest.fixture(scope="module")
def fitted(fixture_warehouse: Settings, tmp_path_factory: pytest.TempPathFactory) -> Fitted:
    """The fits built on a copy of the shared warehouse (its readers must not see it change)."""
    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path_factory.mktemp("fits") / "warehouse")})
    settings.warehouse_dir.mkdir(parents=True)
    shutil.copyfile(fixture_warehouse.duckdb_path, settings.duckdb_path)
    metadata = _materialize(settings)
    return Fitted(settings, metadata, _stamp(settings))


def query(settings: Settings, sql: str) -> list[tuple]:
    con = duckdb.connect(str(settings.duckdb_path), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_assets_sit_in_the_analysis_group_after_the_request_fact() -> None:
    (asset,) = fits_assets()
    assert set(asset.keys) == {fits_key(t) for t in TABLES}
    for key in asset.keys:
        assert asset.group_names_by_key[key] == FITS_GROUP == "analysis"
        assert dg.AssetKey(["marts", "fct_request"]) in asset.asset_deps[key]


def test_one_row_per_window_with_enough_requests_labelled_with_its_origin(fitted: Fitted) -> None:
    rows = query(
        fitted.settings,
        "select model_name, log_type, window_kind, window_index, requests, data_origin "
        "from analysis.arrival_fits order by all",
    )
    expected = query(fitted.settings, EXPECTED_WINDOWS)
    assert rows == expected
    # the real first 400 rows: day 0 of ChatGPT conversations and of all requests, all real
    assert ("ChatGPT", "Conversation log", "day", 0, 320, "real") in rows
    assert ("all", "all", "day", 0, 400, "real") in rows
    skipped = fitted.metadata[f"fits/{ARRIVAL_FITS}"]
    windows = query(
        fitted.settings,
        f"""with labelled as ({LABELLED})
        select count(*) filter (where n < {MIN_ARRIVALS}) from (
            select count(*) as n from labelled group by grouping sets
                ((model_name, log_type, floor(timestamp_s / 3600)), (floor(timestamp_s / 3600))))""",
    )
    assert skipped[f"hour_windows_below_{MIN_ARRIVALS}_requests"] == windows[0][0] > 0
    assert skipped["rows"] == len(rows) and skipped["rows_by_data_origin"] == {"real": len(rows)}


def test_fitted_values_are_those_of_a_gamma(fitted: Fitted) -> None:
    bad = query(
        fitted.settings,
        """select * from analysis.arrival_fits where not (
            gamma_shape > 0 and gamma_scale_s > 0 and request_rate_per_s > 0 and gamma_shape_mle > 0
            and abs(gamma_scale_s * gamma_shape * request_rate_per_s - 1) < 1e-9
            and abs(gamma_shape - 1 / (interarrival_cv * interarrival_cv)) < 1e-9 * gamma_shape
            and abs(mean_interarrival_s * request_rate_per_s - 1) < 1e-9
            and interarrivals = requests - 1
            and ks_statistic between 0 and 1 and ks_pvalue between 0 and 1
            and same_second_share between 0 and 1
            and window_start_s = window_index * window_seconds
            and failed_requests between 0 and requests)""",
    )
    assert bad == []
    # the day-0 rate of all requests: 400 arrivals between second 5 and 37,274 (plus their offsets)
    ((rate,),) = query(
        fitted.settings,
        "select request_rate_per_s from analysis.arrival_fits "
        "where model_name = 'all' and window_kind = 'day' and window_index = 0",
    )
    assert rate == pytest.approx(399 / (37_274 - 5), rel=1e-3)


def test_token_fits_per_model_and_log_type_of_not_failed_requests(fitted: Fitted) -> None:
    rows = query(
        fitted.settings,
        "select model_name, log_type, tokens, requests, data_origin, lognormal_sigma > 0, zipf_a > 1, "
        "better_fit in ('lognormal', 'zipf'), lognormal_ks_statistic between 0 and 1 "
        "from analysis.token_length_fits order by all",
    )
    expected = query(
        fitted.settings,
        f"""with labelled as ({LABELLED})
        select coalesce(model_name, 'all'), coalesce(log_type, 'all'), side, count(*),
            case when count(*) filter (where _data_origin = 'real') = count(*) then 'real' else 'mixed' end,
            true, true, true, true
        from labelled, (values ('request'), ('response')) as sides(side)
        where not is_failed and (case side when 'request' then request_tokens else response_tokens end) >= 1
        group by grouping sets ((model_name, log_type, side), (side))
        having count(*) >= 50
        order by all""",
    )
    assert rows == expected and len(rows) >= 4


def test_rate_scaling_per_file_speed_factor_and_its_arithmetic(fitted: Fitted) -> None:
    rows = query(
        fitted.settings,
        "select speed_factor, requests, replay_seconds, mean_requests_per_s, peak_requests_per_s, data_origin "
        "from analysis.request_rate_scaling where model_name = 'all' and file_number = 1 order by speed_factor",
    )
    assert [r[0] for r in rows] == list(SPEED_FACTORS)
    for factor, requests, seconds, mean, peak, origin in rows:
        assert requests == 400 and origin == "real"
        assert seconds == 37_274 // factor - 5 // factor + 1  # replayed seconds from the first to the last
        assert mean == pytest.approx(requests / seconds)
        assert peak >= mean
    peaks = [r[4] for r in rows]
    assert peaks == sorted(peaks)  # a faster replay packs more requests into its busiest second
    assert (
        fitted.metadata[f"fits/{REQUEST_RATE_SCALING}"]["rows"]
        == query(fitted.settings, "select count(*) from analysis.request_rate_scaling")[0][0]
    )


def test_a_rebuild_gives_the_same_rows_and_leaves_the_database_file_alone(fitted: Fitted) -> None:
    before = {t: query(fitted.settings, f"select * from analysis.{t} order by all") for t in TABLES}
    _materialize(fitted.settings)
    after = {t: query(fitted.settings, f"select * from analysis.{t} order by all") for t in TABLES}
    assert before == after
    # the views over lake/fits/*.parquet were created by the first build; a rebuild replaces the files only
    assert _stamp(fitted.settings) == fitted.stamp
    assert all(fit_file(fitted.settings, t).exists() for t in TABLES)
    assert fitted.metadata[f"fits/{TOKEN_LENGTH_FITS}"]["relation"] == f"analysis.{TOKEN_LENGTH_FITS}"


@pytest.mark.parametrize("database", [False, True])
def test_without_the_facts_the_asset_fails_with_what_to_build(tmp_path, database: bool) -> None:
    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path / "warehouse")})
    settings.warehouse_dir.mkdir(parents=True)
    if database:  # a warehouse whose dbt models were never built
        duckdb.connect(str(settings.duckdb_path)).close()
    with dg.instance_for_test() as instance:
        result = dg.materialize(
            fits_assets(), instance=instance, resources={SETTINGS: settings}, raise_on_error=False
        )
    assert not result.success
    (failure,) = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert "build the dbt models first" in str(failure.step_failure_data.error.message)


def test_the_report_section_summarizes_the_fits_with_their_origin(fitted: Fitted) -> None:
    from pipelines.report.page import fits_section
    from pipelines.report.queries import FITS, fetch

    frames = fetch(fitted.settings, FITS)
    arrivals = frames["arrivals"]
    day = arrivals[(arrivals.model_name == "all") & (arrivals.window_kind == "day")].iloc[0]
    assert (day.windows, day.data_origin) == (1, "real")
    text = fits_section(frames)
    assert "| all | all | day | 1 |" in text and "--burstiness" in text
    assert (
        len(frames["tokens"])
        == query(fitted.settings, "select count(*) from analysis.token_length_fits")[0][0]
    )
    assert "No rows" in fits_section({})
