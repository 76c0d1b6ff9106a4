"""Incremental facts on DuckDB replace exactly the partitions named by var partition_keys (each one
Parquet file in the lake; the other files stay byte-identical).

The warehouse of test_dbt_build.py gets a third BurstGPT partition, day 1 ("0001"). After a full build, the
raw Parquet files of two partitions are rewritten (day 1 and day 0 both change); `dbt build --select
fct_request --vars '{partition_keys: ["0001"]}'` must replace day 1 only: its rows show the new values,
while day 0 (changed upstream but not asked for) and day 225 keep exactly their old rows. Without the var
everything is rebuilt; a partition whose raw rows are gone is emptied, not left stale. (The warehouse's rows
are in tests/support/dbt_runs.py, the partition helpers in tests/support/request_partitions.py.)
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from pipelines.settings import Settings, load_settings
from tests.e2e.cli import query
from tests.support.dbt_runs import load_fixture_rows, run_dbt
from tests.support.request_partitions import FAMILY, facts, raw_file, rewrite

pytestmark = pytest.mark.slow

DAY = 86_400


def lake_files(settings: Settings) -> dict[str, bytes]:
    """fct_request's Parquet files in the lake (DuckDB keeps its rows there), by partition folder/file."""
    root = settings.lake_dir / "models" / "fct_request"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.glob("*/*.parquet"))}


def build(settings: Settings, target: Path, *args: str) -> None:
    result = run_dbt(settings, "build", "--select", "fct_request", *args, target=target)
    assert result.returncode == 0, result.stdout[-6000:]
    run = json.loads((target / "run_results.json").read_text())
    assert {r["unique_id"] for r in run["results"] if r["unique_id"].startswith("model.")} == {
        "model.trace_warehouse.fct_request"
    }


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("incremental")
    settings = load_settings({"WAREHOUSE_DIR": str(root / "warehouse")})
    load_fixture_rows(settings, root / "files")
    day_225 = raw_file(settings, "0225")
    day_1 = settings.raw_dir / FAMILY / "_partition=0001" / "day_1.parquet"
    day_1.parent.mkdir()
    rewrite(day_225, "select * from raw where _row_number in (2, 3)")  # the two valid lines, unchanged
    con = duckdb.connect()
    try:  # day 1: the same two requests 224 days earlier, as lines 1002 and 1003
        con.execute(
            f"copy (select * replace (timestamp_s - {224 * DAY} as timestamp_s, _row_number + 1000 as "
            f"_row_number, '0001' as _partition) from read_parquet('{day_225}')) to '{day_1}' (format parquet)"
        )
    finally:
        con.close()
    result = run_dbt(settings, "build", target=root / "target")
    assert result.returncode == 0, result.stdout[-6000:]
    return settings


def test_only_the_named_partition_is_replaced(settings: Settings, tmp_path: Path) -> None:
    before, files = facts(settings), lake_files(settings)
    assert sorted(before) == ["0000", "0001", "0225"] and len(before["0001"]) == 2
    assert sorted(files) == [f"_partition={k}/data_0.parquet" for k in ("0000", "0001", "0225")]
    rewrite(raw_file(settings, "0001"), "select * replace (elapsed_time + 1000 as elapsed_time) from raw")
    rewrite(raw_file(settings, "0000"), "select * replace (request_tokens + 7 as request_tokens) from raw")

    build(settings, tmp_path / "target", "--vars", '{partition_keys: ["0001"]}')
    after, files_after = facts(settings), lake_files(settings)
    changed = {name for name in files if files_after.get(name) != files[name]}
    assert changed == {"_partition=0001/data_0.parquet"}  # the other files are byte-identical
    assert after["0000"] == before["0000"]  # changed upstream, not in the window: untouched
    assert after["0225"] == before["0225"]
    assert len(after["0001"]) == 2 and after["0001"] != before["0001"]
    elapsed = [(b[13], a[13]) for b, a in zip(before["0001"], after["0001"], strict=True)]  # elapsed_s
    assert [a - b for b, a in elapsed] == [1000.0, 1000.0]
    assert [a[:13] + a[14:] for a in after["0001"]] == [b[:13] + b[14:] for b in before["0001"]]


def test_the_rows_live_in_the_lake_not_in_the_database(settings: Settings) -> None:
    wh = settings.warehouse_dir
    kind = query(
        wh,
        "select table_type from information_schema.tables "
        "where table_schema = 'marts' and table_name = 'fct_request'",
    )
    in_lake = query(
        wh, f"select count(*) from read_parquet('{settings.lake_dir}/models/fct_request/*/*.parquet')"
    )
    in_view = query(wh, "select count(*) from marts.fct_request")
    assert kind == [("VIEW",)]
    assert in_lake == in_view and in_view[0][0] > 0


def test_without_the_var_everything_is_rebuilt(settings: Settings, tmp_path: Path) -> None:
    stale = facts(settings)
    build(settings, tmp_path / "target")
    fresh = facts(settings)
    assert fresh["0225"] == stale["0225"] and fresh["0001"] == stale["0001"]
    assert [r[14] for r in fresh["0000"]] == [r[14] + 7 for r in stale["0000"]]  # request_tokens


def test_a_partition_without_rows_is_emptied(settings: Settings, tmp_path: Path) -> None:
    path = raw_file(settings, "0001")
    path.unlink()
    path.parent.rmdir()
    before = facts(settings)
    build(settings, tmp_path / "target", "--vars", '{partition_keys: ["0001", "0002"]}')
    after = facts(settings)
    assert "0001" not in after
    assert (
        settings.lake_dir / "models" / "fct_request" / "_partition=0001" / "data_0.parquet"
    ).exists()  # empty
    assert after == {k: v for k, v in before.items() if k != "0001"}


def test_full_refresh_rebuilds_from_scratch(settings: Settings, tmp_path: Path) -> None:
    before = facts(settings)
    build(settings, tmp_path / "target", "--full-refresh", "--vars", '{partition_keys: ["0225"]}')
    assert facts(settings) == before  # the var is ignored: every partition, same rows


def test_a_partition_wise_run_on_changed_columns_fails_naming_them(
    settings: Settings, tmp_path: Path
) -> None:
    """The files already written would not match a model whose columns changed: the run fails and says how
    to rebuild them; --full-refresh does."""
    before = facts(settings)
    con = duckdb.connect(str(settings.duckdb_path))
    try:  # the relation as an older model left it: one column fewer
        con.execute("create or replace view marts.fct_request as select 1 as request_key")
    finally:
        con.close()
    result = run_dbt(
        settings,
        "build",
        "--select",
        "fct_request",
        "--vars",
        '{partition_keys: ["0225"]}',
        target=tmp_path / "t",
    )
    assert result.returncode != 0
    assert "the model's columns changed (request_key ->" in result.stdout
    assert "--full-refresh -s fct_request" in result.stdout
    build(settings, tmp_path / "target", "--full-refresh")
    assert facts(settings) == before
