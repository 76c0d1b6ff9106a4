"""Settings resolution: defaults, paths against the project root, and clear errors."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from pipelines.settings import (
    DEFAULT_GITHUB_RAW_URL,
    DEFAULT_GITHUB_URL,
    PROJECT_ROOT,
    SettingsError,
    load_settings,
)


def test_defaults() -> None:
    s = load_settings({})
    assert s.warehouse_dir == PROJECT_ROOT / "warehouse"
    assert s.source == "sample"
    assert s.mirror_dir == s.warehouse_dir / "sample-mirror" == s.sample_mirror_dir
    assert s.engine == "duckdb"
    assert (s.github_raw_url, s.github_url) == (DEFAULT_GITHUB_RAW_URL, DEFAULT_GITHUB_URL)
    assert s.hf_endpoint is None and s.hf_token is None
    assert s.burstgpt_start_date is None
    assert s.dagster_home == s.warehouse_dir / ".dagster"
    assert s.dagster_port == 3000
    assert s.landing_dir == s.warehouse_dir / "landing"
    assert s.manifest_dir == s.warehouse_dir / "manifest"


def test_relative_paths_resolve_against_the_project_root_not_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    s = load_settings({"WAREHOUSE_DIR": "wh", "TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": "mirrors/m1"})
    assert s.warehouse_dir == PROJECT_ROOT / "wh"
    assert s.mirror_dir == PROJECT_ROOT / "mirrors" / "m1"
    assert s.dagster_home == PROJECT_ROOT / "wh" / ".dagster"


def test_absolute_paths_are_kept(tmp_path: Path) -> None:
    s = load_settings({"WAREHOUSE_DIR": str(tmp_path / "w"), "DAGSTER_HOME": str(tmp_path / "d")})
    assert s.warehouse_dir == tmp_path / "w"
    assert s.dagster_home == tmp_path / "d"


def test_bad_trace_source_names_the_variable() -> None:
    with pytest.raises(SettingsError, match=r"TRACE_SOURCE='cloud'.*sample, mirror, remote"):
        load_settings({"TRACE_SOURCE": "cloud"})


def test_bad_engine_names_the_variable() -> None:
    with pytest.raises(SettingsError, match="TRACE_ENGINE"):
        load_settings({"TRACE_ENGINE": "postgres"})


def test_mirror_source_needs_a_mirror_dir() -> None:
    with pytest.raises(SettingsError, match="TRACE_MIRROR_DIR"):
        load_settings({"TRACE_SOURCE": "mirror"})


def test_remote_source_has_no_mirror_dir_and_takes_endpoints() -> None:
    s = load_settings(
        {
            "TRACE_SOURCE": "remote",
            "TRACE_GITHUB_RAW_URL": "http://127.0.0.1:9/raw/",
            "TRACE_GITHUB_URL": "http://127.0.0.1:9/gh/",
            "HF_ENDPOINT": "http://127.0.0.1:9/hf/",
            "HF_TOKEN": "hf_do_not_print",
        }
    )
    assert s.mirror_dir is None
    assert s.github_raw_url == "http://127.0.0.1:9/raw"  # trailing slash dropped
    assert s.github_url == "http://127.0.0.1:9/gh"
    assert s.hf_endpoint == "http://127.0.0.1:9/hf"
    assert s.hf_token == "hf_do_not_print"
    assert "hf_do_not_print" not in repr(s)


@pytest.mark.parametrize("value", ["2023-13-01", "yesterday", "01/02/2023"])
def test_bad_burstgpt_start_date(value: str) -> None:
    with pytest.raises(SettingsError, match=r"BURSTGPT_START_DATE=.*YYYY-MM-DD"):
        load_settings({"BURSTGPT_START_DATE": value})


def test_burstgpt_start_date_is_parsed() -> None:
    assert load_settings({"BURSTGPT_START_DATE": "2023-05-02"}).burstgpt_start_date == date(2023, 5, 2)


def test_non_integer_port_names_the_variable() -> None:
    with pytest.raises(SettingsError, match="DAGSTER_PORT"):
        load_settings({"DAGSTER_PORT": "http"})
