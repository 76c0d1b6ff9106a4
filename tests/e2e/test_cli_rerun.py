"""`trace-warehouse run` again rebuilds what changed: nothing changed, nothing is rebuilt (and the run says what it
skipped and why); ``--all`` rebuilds what it selects. (A changed upstream file rebuilding its lineage through the
CLI: tests/e2e/test_refresh.py, on its mirror.)"""

from __future__ import annotations

import re

from tests.e2e.cli import run_cli
from tests.e2e.conftest import BuiltSample

DBT_SKIPPED = "dbt: skipped — no partition changed since the last build"


def _materialized(out: str) -> int:
    return int(re.search(r"^(\d+) asset\(s\) materialized", out, re.MULTILINE).group(1))


def test_a_rerun_with_nothing_changed_skips_dbt_fits_and_reports(built_sample: BuiltSample) -> None:
    results = built_sample.warehouse / "dbt"
    stamps = {p: p.stat().st_mtime_ns for p in results.rglob("run_results.json")}
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

    forced = run_cli("run", "--all", "--select", 'key:"staging/stg_burstgpt__requests"', env=built_sample.env)
    assert forced.returncode == 0, forced.stdout[-2000:] + forced.stderr[-3000:]
    assert "skipped —" not in forced.stdout and _materialized(forced.stdout) == 1
    assert {p: p.stat().st_mtime_ns for p in results.rglob("run_results.json")} != stamps  # dbt invoked
