"""The Thrift path: dbt on Spark through pyspark's bundled HiveThriftServer2, started on 127.0.0.1.

With SPARK_THRIFT_HOST/PORT set and TRACE_ENGINE=spark, profiles.yml picks the `spark_thrift` target by
itself (no --target). The server gets the warehouse's Spark folders; `dbt build` of the request facts and
everything upstream passes, fct_request equals the DuckDB build of the same lake, and an incremental run on
the server (insert_overwrite of `_partition`) replaces only the partition it is asked for. The server's
process group is gone afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pipelines.settings import Settings, load_settings
from pipelines.spark.tables import read_spark_table
from tests.support.compare_tables import Table, compare_tables
from tests.support.dbt_runs import DBT, DBT_PROJECT_DIR, load_fixture_rows, run_dbt
from tests.support.request_partitions import raw_file, rewrite
from tests.support.spark_thrift import thrift_server

pytestmark = [pytest.mark.spark, pytest.mark.slow]
pytest.importorskip("pyhive", reason="the spark extra is not installed (uv sync --all-extras)")
if shutil.which("java") is None:
    pytest.skip("Spark needs Java (java on PATH)", allow_module_level=True)

SELECT = ["--select", "+fct_request", "--indirect-selection", "cautious"]


def dbt_on_server(settings: Settings, env: dict[str, str], target: Path, *args: str) -> dict:
    """dbt with the Thrift server's address in the environment and no --target; returns run_results."""
    full_env = {
        **os.environ,
        **env,
        "TRACE_ENGINE": "spark",
        "WAREHOUSE_DIR": str(settings.warehouse_dir),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    full_env.pop("PYSPARK_SUBMIT_ARGS", None)
    cmd = [DBT, *args, "--profiles-dir", str(DBT_PROJECT_DIR), "--target-path", str(target)]
    cmd += ["--log-path", str(target)]
    result = subprocess.run(
        cmd, cwd=DBT_PROJECT_DIR, env=full_env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    log = (target / "dbt.log").read_text()
    assert '"target_name": "spark_thrift"' in log and '"target_name": "spark"' not in log
    return json.loads((target / "run_results.json").read_text())


def spark_facts(settings: Settings) -> dict[str, list[tuple]]:
    columns, rows = read_spark_table(settings, "marts", "fct_request")
    out: dict[str, list[tuple]] = {}
    for row in sorted(rows, key=lambda r: (r[-1], r[columns.index("_row_number")])):
        out.setdefault(row[-1], []).append(row)
    return out


def test_dbt_build_through_the_thrift_server(tmp_path: Path) -> None:
    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path / "warehouse")})
    load_fixture_rows(settings, tmp_path / "files")
    duck = run_dbt(settings, "build", *SELECT, target=tmp_path / "duckdb-target")
    assert duck.returncode == 0, duck.stdout[-6000:]
    import duckdb

    con = duckdb.connect(str(settings.duckdb_path), read_only=True)
    try:
        rel = con.sql("select * from marts.fct_request")
        on_duckdb = Table.of(rel.columns, rel.fetchall())
    finally:
        con.close()

    with thrift_server(settings) as server:
        assert server.host == "127.0.0.1"
        run = dbt_on_server(settings, server.env, tmp_path / "spark-target", "build", *SELECT)
        statuses = {r["status"] for r in run["results"]}
        assert statuses <= {"success", "pass", "warn"}, statuses
        models = {r["unique_id"] for r in run["results"] if r["unique_id"].startswith("model.")}
        assert models == {
            f"model.trace_warehouse.{m}"
            for m in ("stg_burstgpt__requests", "int_requests_enriched", "fct_request")
        }
        assert any(r["unique_id"].startswith("test.") for r in run["results"])

        columns, rows = read_spark_table(settings, "marts", "fct_request")
        comparison = compare_tables("marts.fct_request", on_duckdb, Table.of(columns, rows))
        assert comparison.equal, str(comparison)

        # incremental on the server: two raw partitions change, only the named one is replaced
        before = spark_facts(settings)
        rewrite(raw_file(settings, "0225"), "select * replace (elapsed_time + 1000 as elapsed_time) from raw")
        rewrite(
            raw_file(settings, "0000"), "select * replace (request_tokens + 7 as request_tokens) from raw"
        )
        dbt_on_server(
            settings, server.env, tmp_path / "incremental-target",
            "run", "--select", "fct_request", "--vars", '{partition_keys: ["0225"]}',
        )  # fmt: skip
        after = spark_facts(settings)
        assert after["0000"] == before["0000"]
        elapsed = columns.index("elapsed_s")
        assert [a[elapsed] - b[elapsed] for b, a in zip(before["0225"], after["0225"], strict=True)] == [
            1000.0
        ] * len(before["0225"])
    assert server.process.poll() is not None and not server.group_alive()
