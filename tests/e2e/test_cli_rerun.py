"""`trace-warehouse run` again rebuilds what changed: nothing changed, nothing is rebuilt (and the run says what it
skipped and why); a changed upstream file rebuilds its lineage; ``--all`` rebuilds everything selected."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipelines.families.registry import fixed_files
from pipelines.sample import generate_sample
from tests.e2e.cli import query, run_cli
from tests.e2e.conftest import BuiltSample
from tests.e2e.test_refresh import _republish

BURST_2 = next(f for f in fixed_files() if f.file_name == "BurstGPT_2.csv")
BURST_LINEAGE = 'tag:"source"="burstgpt"+'  # BurstGPT's landing and raw assets and all downstream of them
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


@pytest.fixture(scope="module")
def burst_mirror(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """BurstGPT's lineage (landing to the report) built from a mirror whose files the test may change."""
    root = tmp_path_factory.mktemp("rerun")
    generate_sample(root / "mirror")
    wh = root / "warehouse"
    env = {
        "WAREHOUSE_DIR": str(wh),
        "DAGSTER_HOME": str(wh / ".dagster"),
        "TRACE_SOURCE": "mirror",
        "TRACE_MIRROR_DIR": str(root / "mirror"),
    }
    first = run_cli("run", "--select", BURST_LINEAGE, env=env)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert DBT_SKIPPED not in first.stdout  # a first run builds everything
    return root / "mirror", wh, env


def test_a_changed_upstream_file_rebuilds_its_lineage_and_all_rebuilds_everything(burst_mirror) -> None:
    mirror, wh, env = burst_mirror
    quiet = run_cli("run", "--select", BURST_LINEAGE, env=env)
    assert quiet.returncode == 0 and DBT_SKIPPED in quiet.stdout, quiet.stdout[-3000:]

    burst = mirror / BURST_2.mirror_path
    last_ts = int(burst.read_text().rstrip("\n").rsplit("\n", 1)[-1].split(",", 1)[0])
    new_day = last_ts // 86400 + 1
    with burst.open("a") as fh:
        fh.write(f"{new_day * 86400 + 7},GPT-4,100,7,107,Conversation log\n")
    _republish(mirror, BURST_2.mirror_path)

    changed = run_cli("run", "--select", BURST_LINEAGE, env=env)
    assert changed.returncode == 0, changed.stdout[-3000:] + changed.stderr[-3000:]
    out = changed.stdout
    assert "skipped —" not in out, out[-3000:]  # the whole lineage of the changed family is rebuilt
    for line in ("landing/burstgpt__requests", "raw/burstgpt__requests", "report/* ("):
        assert line in out, line
    partition = f"{new_day:04d}"
    assert query(wh, f"select count(*) from marts.fct_request where _partition = '{partition}'") == [(1,)]

    forced = run_cli("run", "--all", "--select", BURST_LINEAGE, env=env)
    assert forced.returncode == 0, forced.stdout[-3000:] + forced.stderr[-3000:]
    assert "skipped —" not in forced.stdout
    assert _materialized(forced.stdout) == _materialized(changed.stdout) > 0
