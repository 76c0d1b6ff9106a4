"""Shared fixtures: every test gets its own warehouse under tmp_path; nothing touches ./warehouse."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.settings import Settings, load_settings

REAL_DIR = Path(__file__).resolve().parent.parent / "pipelines" / "sources" / "real"

# Variables a developer's shell may carry that would leak into the tests' settings.
_SETTINGS_VARS = (
    "WAREHOUSE_DIR", "TRACE_SOURCE", "TRACE_MIRROR_DIR", "TRACE_ENGINE", "TRACE_GITHUB_RAW_URL",
    "TRACE_GITHUB_URL", "HF_ENDPOINT", "HF_TOKEN", "BURSTGPT_START_DATE", "DAGSTER_HOME", "DAGSTER_PORT", "SPARK_THRIFT_HOST", "SPARK_THRIFT_PORT", "TRACE_DOCS_PORT", "TRACE_DOCS_URL",
)  # fmt: skip


@pytest.fixture(autouse=True)
def _clean_settings_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in _SETTINGS_VARS:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Settings for a fresh warehouse in tmp_path (also exported, as the CLI and Dagster read the env)."""
    monkeypatch.setenv("WAREHOUSE_DIR", str(tmp_path / "warehouse"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "warehouse" / ".dagster"))
    return load_settings()
