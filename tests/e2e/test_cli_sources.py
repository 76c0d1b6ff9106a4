"""The remote and mirror code paths end to end through the CLI: a generated sample served over HTTP on
127.0.0.1, and a mirror with a missing file (the other families still load; the run exits non-zero)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipelines.families.registry import fixed_files
from pipelines.sample import generate_sample
from tests.e2e.cli import query, run_cli
from tests.support.mirror_server import MirrorServer

# These tests are about fetching and loading: the dbt and report layers are covered elsewhere.
LANDING_AND_RAW = "group:landing or group:raw"


@pytest.fixture(scope="module")
def sample_mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mirror")
    generate_sample(root)
    return root


def test_remote_source_over_loopback_http(sample_mirror: Path, tmp_path: Path) -> None:
    wh = tmp_path / "warehouse"
    env = {"WAREHOUSE_DIR": str(wh), "DAGSTER_HOME": str(wh / ".dagster")}
    with MirrorServer(sample_mirror) as server:
        first = run_cli("run", "--select", LANDING_AND_RAW, env={**env, **server.env()})
        assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-3000:]
        gets = [r for r in server.requests if r.method == "GET" and r.path.endswith(".csv")]
        assert len(gets) >= len(fixed_files())
        server.clear_log()
        again = run_cli("run", "--all", "--select", LANDING_AND_RAW, env={**env, **server.env()})
        assert again.returncode == 0, again.stderr[-3000:]
        assert [r for r in server.requests if r.method == "GET" and r.path.endswith(".csv")] == []
    # Origins come from the served MANIFEST.json, so synthetic rows are never taken for real ones.
    origins = dict(query(wh, "select _data_origin, count(*) from raw.burstgpt__requests group by 1"))
    assert origins["real"] == 400 and origins["synthetic"] > 0
    (urls,) = query(wh, "select count(*) from meta.landed_files where url like 'http://127.0.0.1:%'")[0]
    assert urls > 0


def test_missing_mirror_file_fails_only_its_family(sample_mirror: Path, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    shutil.copytree(sample_mirror, mirror)
    kalos = next(f for f in fixed_files() if f.family == "acme__kalos_jobs")
    (mirror / kalos.mirror_path).unlink()
    wh = tmp_path / "warehouse"
    env = {"WAREHOUSE_DIR": str(wh), "DAGSTER_HOME": str(wh / ".dagster")}
    result = run_cli(
        "run", "--source", "mirror", "--mirror", str(mirror), "--select", LANDING_AND_RAW, env=env
    )
    assert result.returncode == 1
    assert "landing/acme__kalos_jobs" in result.stdout and "FAILED" in result.stdout
    assert str(mirror / kalos.mirror_path) in result.stdout + result.stderr
    assert query(wh, "select count(*) > 0 from raw.acme__seren_jobs") == [(True,)]
    tables = {r[0] for r in query(wh, "select table_name from information_schema.tables")}
    assert "acme__kalos_jobs" not in tables


def test_bad_setting_is_a_clear_error(tmp_path: Path) -> None:
    result = run_cli("run", "--source", "mirror", env={"WAREHOUSE_DIR": str(tmp_path / "wh")})
    assert result.returncode == 2
    assert "TRACE_SOURCE=mirror needs TRACE_MIRROR_DIR" in result.stderr
