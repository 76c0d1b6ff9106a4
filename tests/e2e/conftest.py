"""One warehouse built from the embedded sample through the real CLI, shared by the end-to-end tests that
only read it or re-run over it (re-runs are idempotent)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.cli import query, run_cli


@dataclass(frozen=True)
class BuiltSample:
    warehouse: Path
    env: dict[str, str]
    burst_only_tables: list[str]  # tables after the first run, of the BurstGPT assets only
    stdout: str  # of the second run (`--all`: everything), not on a terminal


@pytest.fixture(scope="session")
def built_sample(tmp_path_factory: pytest.TempPathFactory) -> BuiltSample:
    root = tmp_path_factory.mktemp("sample-run")
    env = {"WAREHOUSE_DIR": str(root / "warehouse"), "DAGSTER_HOME": str(root / "warehouse" / ".dagster")}
    first = run_cli("run", "--select", 'tag:"source"="burstgpt"', env=env)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-3000:]
    burst_only = sorted(
        {r[0] for r in query(root / "warehouse", "select table_name from information_schema.tables")}
    )
    everything = run_cli("run", "--all", env=env)
    assert everything.returncode == 0, everything.stdout[-2000:] + everything.stderr[-3000:]
    return BuiltSample(root / "warehouse", env, burst_only, everything.stdout)
