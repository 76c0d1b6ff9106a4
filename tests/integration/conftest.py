"""Fixtures shared by integration modules."""

from __future__ import annotations

import pytest

from pipelines.settings import Settings, load_settings
from tests.support.dbt_runs import load_fixture_rows, run_dbt


@pytest.fixture(scope="session")
def fixture_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """One dbt build (``dbt build``, every model and test) of the real rows shipped in the repository plus
    the synthetic rows of ``tests/support/dbt_runs.py``, shared by the modules that only read it (dbt,
    reports, exports). Readers must not change it: copy ``trace.duckdb`` to alter it."""
    root = tmp_path_factory.mktemp("dbt")
    settings = load_settings({"WAREHOUSE_DIR": str(root / "warehouse")})
    load_fixture_rows(settings, root / "files")
    result = run_dbt(settings, "build", target=root / "target")
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    return settings
