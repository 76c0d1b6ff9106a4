"""Shared fixtures: every test gets its own warehouse under tmp_path; nothing touches ./warehouse."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.settings import SETTINGS_VARS, Settings, load_settings
from tests.support.reliability_tally import Tally

REAL_DIR = Path(__file__).resolve().parent.parent / "pipelines" / "sample" / "real"
# Session fixtures that build a warehouse once: every module using one runs on the same xdist worker.
SHARED_BUILDS = ("built_sample", "fixture_warehouse")
# The Spark modules' group: one JVM's worth of memory and ports at a time.
SPARK_GROUP = "spark"
# The groups that take a minute or more, longest first (seconds of one `make test`, from `--durations`): queued
# in this order before every other group, so the two workers end together rather than one running a long group
# alone at the end. `make test` keeps the order (`--no-loadscope-reorder`: xdist would otherwise queue the
# groups by their number of tests); the other groups follow in collection order, short ones last.
LONG_GROUPS_FIRST = (
    SPARK_GROUP,
    "fixture_warehouse",
    "tests/e2e/test_refresh.py",
    "tests/integration/test_benchmark_smoke.py",
    "tests/integration/test_dbt_incremental.py",
    "built_sample",
    "tests/browser/test_file_partitions_ui.py",
    "tests/browser/test_automation_ui.py",
    "tests/e2e/test_concurrency.py",
    "tests/e2e/test_cli_sources.py",
    "tests/integration/test_dbt_dagster.py",
    "tests/integration/test_load_faults.py",
    "tests/browser/test_dagster_ui.py",
)


@pytest.hookimpl(wrapper=True)  # marks before every other implementation runs: xdist's reads them
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):
    """Groups for ``pytest -n 2 --dist loadgroup`` (``make test``): a module's tests stay together (its
    module-scoped fixtures are built once), the modules sharing a session-built warehouse share a worker, and
    the Spark modules share one (one JVM's worth of memory and ports at a time). Without xdist
    (``-p no:xdist``) there is nothing to group. The groups of ``LONG_GROUPS_FIRST`` go to the front, in its
    order."""
    if not config.pluginmanager.hasplugin("xdist"):
        return (yield)
    group: dict[str, str] = {}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        fixtures = set(getattr(item, "fixturenames", ()))
        shared = (
            SPARK_GROUP
            if item.get_closest_marker("spark")
            else next((name for name in SHARED_BUILDS if name in fixtures), None)
        )
        if shared:
            group[module] = shared
        else:
            group.setdefault(module, module)
    for item in items:
        item.add_marker(pytest.mark.xdist_group(group[item.nodeid.split("::", 1)[0]]))
    rank = {name: position for position, name in enumerate(LONG_GROUPS_FIRST)}
    items.sort(key=lambda item: rank.get(group[item.nodeid.split("::", 1)[0]], len(rank)))  # stable
    return (yield)


_reliability = Tally()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _reliability.add(report)


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    """The reliability figures (``tests/support/reliability_tally.py``), on the controller only."""
    if not hasattr(config, "workerinput"):
        for line in _reliability.lines():
            terminalreporter.write_line(line)


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
