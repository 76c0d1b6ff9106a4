"""The whole foundation graph on the embedded sample, through the real CLI, into a tmp warehouse
(``built_sample`` in conftest.py: built once for the session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.families.registry import FAMILIES
from tests.e2e.cli import query, run_cli
from tests.e2e.conftest import BuiltSample


@pytest.fixture(scope="module")
def built(built_sample: BuiltSample) -> tuple[Path, dict[str, str], str]:
    b = built_sample
    return b.warehouse, b.env, "\n".join(b.burst_only_tables) + "\n---\n" + b.stdout


def test_selection_builds_only_the_selected_dataset(built) -> None:
    _, _, out = built
    burst_only = out.split("\n---\n")[0].split("\n")
    assert "burstgpt__requests" in burst_only and "burstgpt__requests_without_fails" in burst_only
    assert not [t for t in burst_only if t.startswith("acme__")]


def test_every_family_has_a_raw_view_with_rows(built) -> None:
    wh, _, _ = built
    for fam in FAMILIES:
        (n,) = query(wh, f"select count(*) from raw.{fam.key}")[0]
        assert n > 0, fam.key


def test_summary_reports_files_rows_and_time(built) -> None:
    _, _, out = built
    summary = out.split("\n---\n")[1]
    assert "raw/burstgpt__requests" in summary and "asset(s) materialized, 0 failed" in summary
    assert "rows loaded" in summary and "rejected" in summary


def test_every_line_is_accounted_for(built) -> None:
    wh, _, _ = built
    bad = query(wh, "select mirror_path from meta.file_loads where lines <> loaded + rejected")
    assert bad == []
    table_files = query(
        wh,
        "select family, sum(loaded) from meta.file_loads where family not like '%metrics' group by family",
    )
    for family, loaded in table_files:
        (n,) = query(wh, f"select count(*) from raw.{family}")[0]
        assert n == loaded, family


def test_real_rows_are_marked_real(built) -> None:
    wh, _, _ = built
    real = query(
        wh,
        "select count(*), min(timestamp_s), max(timestamp_s), count(*) filter (where total_tokens = 0) "
        "from raw.burstgpt__requests where _data_origin = 'real'",
    )
    assert real == [(400, 5.0, 37274.0, 17)]
    kalos = query(
        wh, "select job_id, duration from raw.acme__kalos_jobs where _data_origin = 'real' order by 1"
    )
    assert kalos == [("dlc1t2ypl09b8qtp", 82.0), ("dlctk696s0jbvitv", 18.0)]
    assert query(wh, "select distinct _data_origin from raw.acme__cluster_summary") == [("real",)]
    (synthetic,) = query(wh, "select count(*) from raw.acme__seren_jobs where _data_origin = 'synthetic'")[0]
    assert synthetic > 1000


def test_rerun_is_idempotent(built) -> None:
    """Landing and loading every family again (``--all``: not skipped as unchanged) changes nothing."""
    wh, env, _ = built
    before = {f.key: query(wh, f"select count(*) from raw.{f.key}")[0][0] for f in FAMILIES}
    again = run_cli("run", "--all", "--select", "group:landing or group:raw", env=env)
    assert again.returncode == 0, again.stderr[-3000:]
    after = {f.key: query(wh, f"select count(*) from raw.{f.key}")[0][0] for f in FAMILIES}
    assert after == before
    changed = query(wh, "select count(*) from meta.landed_files where changed")
    assert changed == [(0,)]


def test_sql_command_reads_the_warehouse(built) -> None:
    _, env, _ = built
    ok = run_cli(
        "sql", "select count(*) as n from raw.burstgpt__requests where _data_origin = 'real'", env=env
    )
    assert ok.returncode == 0 and "400" in ok.stdout
    bad = run_cli("sql", "select * from raw.no_such_family", env=env)
    assert bad.returncode == 1 and "no_such_family" in bad.stderr


def test_the_fits_are_built_and_say_the_sample_is_synthetic(built) -> None:
    """`trace-warehouse run` builds the fitted models after the facts; on the sample the fits stand on
    generated requests and say so; only windows of day 0, which holds the 400 real rows, can be real."""
    wh, _, out = built
    summary = out.split("\n---\n")[1]
    assert "fits/* (3 assets)" in summary
    for table in ("arrival_fits", "token_length_fits", "request_rate_scaling"):
        origins = dict(query(wh, f"select data_origin, count(*) from analysis.{table} group by 1"))
        assert "synthetic" in origins and set(origins) <= {"synthetic", "mixed", "real"}, (table, origins)
    # the real rows are all in day 0 (seconds 5 to 37,274): no later window can be real
    real = query(
        wh, "select count(*) from analysis.arrival_fits where data_origin = 'real' and window_start_s > 37274"
    )
    assert real == [(0,)]
    windows = query(
        wh,
        "select count(*), count(distinct (model_name, log_type, window_kind, window_index)) "
        "from analysis.arrival_fits",
    )
    assert windows[0][0] == windows[0][1] > 0
