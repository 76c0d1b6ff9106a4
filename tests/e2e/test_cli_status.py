"""`trace-warehouse status`: what a built warehouse holds, and a clear word when nothing was built."""

from __future__ import annotations

import re
from pathlib import Path

from pipelines.families.registry import FAMILIES
from tests.e2e.cli import query, run_cli
from tests.e2e.conftest import BuiltSample


def _row(out: str, family: str) -> list[str]:
    match = re.search(rf"^{family}\s+(.*)$", out, re.MULTILINE)
    assert match, f"no line for {family}:\n{out}"
    return match.group(1).split()


def test_status_of_the_built_sample(built_sample: BuiltSample) -> None:
    done = run_cli("status", env=built_sample.env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    wh = built_sample.warehouse
    for fam in FAMILIES:
        files, rows, rejected, quarantined, origin, *_loaded, pending = _row(out, fam.key)
        expected = query(
            wh,
            'select count(*), sum(coalesce("values", loaded)), sum(rejected) from meta.file_loads '
            f"where family = '{fam.key}'",
        )[0]
        assert (int(files), int(rows.replace(",", "")), int(rejected.replace(",", ""))) == expected, fam.key
        assert origin in ("real", "synthetic", "mixed") or "+" in origin, origin
        assert int(pending) >= 0 and int(quarantined.replace(",", "")) >= 0
    assert _row(out, "acme__cluster_summary")[4] == "real"
    assert "last run: SUCCESS" in out
    assert "upstream: nothing changed since the last landing" in out
    assert (
        f"Data Docs    {wh / 'docs' / 'gx' / 'index.html'}  (http://127.0.0.1:3001/docs/gx/index.html)" in out
    )
    assert f"report       {wh / 'report' / 'report.md'}" in out


def test_status_without_a_warehouse_says_to_run_make_run(tmp_path: Path) -> None:
    for wh in (tmp_path / "nothing-here", tmp_path / "empty"):
        if wh.name == "empty":
            wh.mkdir()
        done = run_cli("status", env={"WAREHOUSE_DIR": str(wh), "DAGSTER_HOME": str(wh / ".dagster")})
        assert done.returncode != 0
        assert "make run" in done.stderr and str(wh) in done.stderr
        assert not (wh / ".dagster").exists(), "status writes nothing"
