"""`trace-warehouse run` again rebuilds what changed: nothing changed, nothing is rebuilt (and the run says what it
skipped and why), deciding it without loading the definitions; ``--all`` rebuilds what it selects. (A changed
upstream file rebuilding its lineage through the CLI: tests/e2e/test_refresh.py, on its mirror.)"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from pipelines.definitions import build_definitions
from pipelines.defs.automation import EVERYTHING
from pipelines.defs.instance import open_instance
from pipelines.defs.rebuild import GRAPH_BUILT, graph_unchanged, stale_roots
from pipelines.lake.pending import add_pending, consume
from pipelines.settings import Settings, load_settings
from tests.e2e.cli import run_cli
from tests.e2e.conftest import BuiltSample

DBT_SKIPPED = "dbt: skipped — no partition changed since the last build"


def _materialized(out: str) -> int:
    return int(re.search(r"^(\d+) asset\(s\) materialized", out, re.MULTILINE).group(1))


def test_a_rerun_with_nothing_changed_skips_dbt_fits_and_reports(built_sample: BuiltSample) -> None:
    results = built_sample.warehouse / "dbt"
    stamps = {p: p.stat().st_mtime_ns for p in results.rglob("run_results.json")}
    logs = set((built_sample.warehouse / "logs").iterdir())
    again = run_cli("run", env=built_sample.env)
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-3000:]
    out = again.stdout
    for line in (
        "landing: skipped — no upstream file changed since it was landed",
        DBT_SKIPPED,
        "fits: skipped — marts unchanged",
        "reports: skipped — marts unchanged",
    ):
        assert line in out, out[-3000:]
    assert _materialized(out) == 0
    assert {p: p.stat().st_mtime_ns for p in results.rglob("run_results.json")} == stamps  # dbt not invoked
    # decided before Dagster started: no run, so no run log (test_the_quick_decision_is_dagsters says why)
    assert set((built_sample.warehouse / "logs").iterdir()) == logs and "full log" not in out, out[-3000:]

    forced = run_cli("run", "--all", "--select", 'key:"staging/stg_burstgpt__requests"', env=built_sample.env)
    assert forced.returncode == 0, forced.stdout[-2000:] + forced.stderr[-3000:]
    assert "skipped —" not in forced.stdout and _materialized(forced.stdout) == 1
    assert {p: p.stat().st_mtime_ns for p in results.rglob("run_results.json")} != stamps  # dbt invoked


def _decisions(settings: Settings) -> tuple[bool, bool]:
    """(nothing to run without Dagster, nothing to run by the definitions and the instance)."""
    quick = graph_unchanged(settings)
    graph = build_definitions(settings).resolve_asset_graph()
    with open_instance(settings) as instance:
        slow = not stale_roots(settings, instance, graph, set(EVERYTHING.resolve(graph)))
    return quick, slow


def test_the_quick_decision_is_dagsters(built_sample: BuiltSample, tmp_path: Path) -> None:
    """``graph_unchanged`` (no Dagster) finds nothing to run exactly when ``stale_roots`` (the definitions and
    the Dagster instance) does, on a copy of the built sample and after each change that makes a run needed.
    Where it cannot know (another code, a wiped instance) it says "run" and Dagster decides."""
    warehouse = tmp_path / "warehouse"
    shutil.copytree(built_sample.warehouse, warehouse, symlinks=True)
    settings = load_settings({"WAREHOUSE_DIR": str(warehouse), "DAGSTER_HOME": str(warehouse / ".dagster")})
    assert _decisions(settings) == (True, True)

    upstream = sorted((warehouse / "sample-mirror").rglob("*.csv"))[0]
    mtime = upstream.stat().st_mtime_ns
    os.utime(upstream, ns=(mtime, mtime + 10**9))  # an upstream file changed
    assert _decisions(settings) == (False, False)
    os.utime(upstream, ns=(mtime, mtime))
    assert _decisions(settings) == (True, True)

    add_pending(settings, "burstgpt__requests", ["BurstGPT_1.csv"])  # a raw partition dbt has not built
    assert _decisions(settings) == (False, False)
    consume(settings, {"burstgpt__requests": {"BurstGPT_1.csv"}})
    assert _decisions(settings) == (True, True)

    results = next((warehouse / "dbt").rglob("run_results.json"))
    results.rename(results.with_suffix(".bak"))  # dbt never built on this engine
    assert _decisions(settings) == (False, False)
    results.with_suffix(".bak").rename(results)

    stamp = warehouse / ".dagster" / GRAPH_BUILT
    recorded = json.loads(stamp.read_text())
    stamp.write_text(json.dumps({**recorded, "code": "another"}))  # built by another version of the code
    assert _decisions(settings) == (False, True)
    stamp.write_text(json.dumps(recorded))
    assert _decisions(settings) == (True, True)

    shutil.rmtree(warehouse / ".dagster")  # a new instance: nothing materialized in it
    assert _decisions(settings) == (False, False)
