"""Shared fixtures: every test gets its own warehouse under tmp_path; nothing touches ./warehouse."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.settings import SETTINGS_VARS, Settings, load_settings

REAL_DIR = Path(__file__).resolve().parent.parent / "pipelines" / "sample" / "real"


@pytest.fixture(autouse=True)
def _clean_settings_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in SETTINGS_VARS:  # a developer's shell must not leak into the tests' settings
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Settings for a fresh warehouse in tmp_path (also exported, as the CLI and Dagster read the env)."""
    monkeypatch.setenv("WAREHOUSE_DIR", str(tmp_path / "warehouse"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "warehouse" / ".dagster"))
    return load_settings()
