"""Settings resolution: defaults, paths against the project root, and clear errors."""

from __future__ import annotations

import dataclasses
import re
from datetime import date
from pathlib import Path

import pytest

from pipelines.settings import (
    PROJECT_ROOT,
    SETTINGS_BY_VAR,
    SETTINGS_TABLE,
    Settings,
    SettingsError,
    load_settings,
    settings_variables,
)


def test_defaults() -> None:
    s = load_settings({})
    assert s.warehouse_dir == PROJECT_ROOT / "warehouse"
    assert s.source == "sample"
    assert s.mirror_dir == s.warehouse_dir / "sample-mirror" == s.sample_mirror_dir
    assert s.engine == "duckdb"
    assert (s.github_raw_url, s.github_url) == ("https://raw.githubusercontent.com", "https://github.com")
    assert (s.duckdb_memory_limit, s.spark_shuffle_partitions, s.drop_landed) == ("768MB", 2, False)
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


def test_the_table_fills_every_field_once() -> None:
    """Each Settings field is one row of SETTINGS_TABLE (variable, type, default, help), in field order; a
    secret's field is left out of the repr."""
    fields = dataclasses.fields(Settings)
    assert [f.name for f in fields] == [s.field for s in SETTINGS_TABLE]
    assert all(f.default is dataclasses.MISSING for f in fields)  # the defaults are the table's
    assert {f.name for f in fields if not f.repr} == {s.field for s in SETTINGS_TABLE if s.secret}
    assert all(s.meaning and s.docs_default for s in SETTINGS_TABLE)


def test_every_default_round_trips_through_its_variable() -> None:
    """A default written out (as a child process or dbt's profile gets it) reads back as the default."""
    defaults = load_settings({})
    for setting in SETTINGS_TABLE:
        if setting.default is None or callable(setting.default):
            continue
        again = load_settings({setting.name: setting.default_text})
        assert getattr(again, setting.field) == getattr(defaults, setting.field), setting.name
    assert load_settings(settings_variables(defaults)) == defaults


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("TRACE_ENGINE", "postgres", r"TRACE_ENGINE='postgres' is not one of duckdb, spark"),
        ("TRACE_UTILIZATION_PERCENTILES", "median", r"is not one of auto, exact, binned"),
        ("TRACE_DROP_LANDED", "yes", r"TRACE_DROP_LANDED='yes' is not one of 0, 1"),
        ("SPARK_THRIFT_PORT", "ten", r"SPARK_THRIFT_PORT='ten' is not an integer"),
    ],
)
def test_each_type_names_the_variable(name: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        load_settings({name: value})


def test_values_are_parsed_by_their_type() -> None:
    s = load_settings(
        {
            "TRACE_DROP_LANDED": "1",
            "SPARK_THRIFT_PORT": " 10001 ",
            "DAGSTER_PORT": "0",
            "TRACE_DOCS_URL": "http://d/",
        }
    )
    assert (s.drop_landed, s.spark_thrift_port, s.docs_base_url) == (True, 10001, "http://d")
    assert s.dagster_port == SETTINGS_BY_VAR["DAGSTER_PORT"].default  # 0: the default
    assert load_settings({"TRACE_MIRROR_DIR": "m", "TRACE_SOURCE": "remote"}).mirror_dir == PROJECT_ROOT / "m"


def test_no_module_writes_the_process_environment() -> None:
    """Settings are passed, and children get them in their own environment (child_environment, the dbt
    resource): nothing in pipelines/ changes os.environ."""
    writes = re.compile(
        r"os\.environ(\[[^\]]*\]\s*=(?!=)|\.(update|pop|popitem|setdefault|clear)\()|os\.(putenv|unsetenv)"
    )
    found = [
        f"{path.relative_to(PROJECT_ROOT)}:{n}"
        for path in sorted((PROJECT_ROOT / "pipelines").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if writes.search(line)
    ]
    assert found == []
