"""Declarative automation in the real webserver and daemon (``trace-warehouse dev``): the assets show their
automation conditions, and a changed upstream file becomes a run that Dagster launched on its own.

Steps: write the synthetic sample as a mirror and land every family through the CLI (so only the file we
touch is "changed"); start ``trace-warehouse dev`` on it; read the conditions over GraphQL and on the landing
asset's page in Chromium; turn on ``refresh_automation`` (its first tick only sets its cursor), then
``upstream_change_sensor``; touch ``cluster_summary.csv`` in the mirror. The sensor reports
``upstream/acme__cluster_summary`` changed, the eager conditions request its landing, raw and staging
assets, and the daemon launches that run (tag ``trace-warehouse/trigger=automation``); it must succeed and
load the family into the lake. GraphQL turns the sensors on and waits; nothing is launched by hand.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pipelines.families.registry import fixed_files
from pipelines.sample import generate_sample
from tests.e2e.cli import run_cli
from tests.support.dagster_ui import DagsterUI, dagster_ui

if TYPE_CHECKING:
    from playwright.sync_api import Page

FAMILY = "acme__cluster_summary"
LANDING_LABEL = "upstream changed, or daily at 03:00 UTC"
TRIGGER = {"key": "trace-warehouse/trigger", "value": "automation"}


def _conditions(ui: DagsterUI) -> dict[str, str | None]:
    data = ui.graphql("{ assetNodes { assetKey { path } automationCondition { label } } }")
    return {
        "/".join(n["assetKey"]["path"]): (n["automationCondition"] or {}).get("label")
        for n in data["assetNodes"]
    }


def _sensor_selector(ui: DagsterUI, location: str, name: str) -> dict[str, str]:
    return {"repositoryLocationName": location, "repositoryName": "__repository__", "sensorName": name}


def _start_sensor(ui: DagsterUI, selector: dict[str, str]) -> None:
    data = ui.graphql(
        """mutation($s: SensorSelector!) { startSensor(sensorSelector: $s) {
             __typename ... on Sensor { sensorState { status } } ... on PythonError { message } } }""",
        {"s": selector},
    )["startSensor"]
    assert data["__typename"] == "Sensor" and data["sensorState"]["status"] == "RUNNING", data


def _ticks(ui: DagsterUI, selector: dict[str, str]) -> list[dict]:
    data = ui.graphql(
        """query($s: SensorSelector!) { sensorOrError(sensorSelector: $s) { __typename ... on Sensor {
             sensorState { ticks(limit: 10) { status skipReason error { message } } } } } }""",
        {"s": selector},
    )["sensorOrError"]
    return data["sensorState"]["ticks"]


def _reported(ui: DagsterUI, path: list[str]) -> bool:
    """Whether the asset has a materialization (for ``upstream/*``: the sensor reported a change)."""
    data = ui.graphql(
        """query($k: AssetKeyInput!) { assetOrError(assetKey: $k) { __typename ... on Asset {
             assetMaterializations(limit: 1) { timestamp } } } }""",
        {"k": {"path": path}},
    )["assetOrError"]
    return bool(data.get("assetMaterializations"))


def _wait(what: str, ui: DagsterUI, probe: Callable[[], object], timeout: float) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ui._check_alive()
        found = probe()
        if found:
            return found
        time.sleep(2)
    raise AssertionError(f"{what}: not within {timeout:.0f}s\n{ui.log_tail()}")


def _automation_runs(ui: DagsterUI) -> list[dict]:
    data = ui.graphql(
        """query($t: [ExecutionTag!]) { runsOrError(filter: {tags: $t}) { ... on Runs {
             results { runId status assetSelection { path } } } } }""",
        {"t": [TRIGGER]},
    )
    return data["runsOrError"]["results"]


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(480)
def test_a_changed_upstream_file_becomes_a_run_the_automation_launched(
    new_page: Callable[[], Page], artifacts_dir: Path, tmp_path: Path
) -> None:
    page = new_page()  # first: fails at once if Chromium is missing
    from playwright.sync_api import expect

    mirror, wh = tmp_path / "mirror", tmp_path / "warehouse"
    generate_sample(mirror)
    env = {
        "WAREHOUSE_DIR": str(wh),
        "DAGSTER_HOME": str(wh / ".dagster"),
        "TRACE_SOURCE": "mirror",
        "TRACE_MIRROR_DIR": str(mirror),
    }
    landed = run_cli("run", "--select", "group:landing", env=env, timeout=300)
    assert landed.returncode == 0, landed.stdout[-2000:] + landed.stderr[-3000:]
    assert not (wh / "lake" / "raw" / FAMILY).exists()

    with dagster_ui(wh, artifacts_dir / "dagster-dev-automation.log", env=env) as ui:
        (location,) = ui.wait_for_code_locations(timeout=90)

        # 1. The conditions, as the webserver serves them, and on the landing asset's page.
        conditions = _conditions(ui)
        assert conditions[f"landing/{FAMILY}"] == LANDING_LABEL
        assert conditions[f"raw/{FAMILY}"] == "eager"
        assert conditions["marts/fct_job"] == "eager"
        assert conditions[f"upstream/{FAMILY}"] is None
        page.goto(f"{ui.url}/assets/landing/{FAMILY}")
        expect(page.get_by_text(LANDING_LABEL).first).to_be_visible(timeout=30_000)
        page.screenshot(path=str(artifacts_dir / "automation-01-landing-condition.png"))

        # 2. The automation sensor's first tick: it sets its cursor and requests nothing.
        automation = _sensor_selector(ui, location, "refresh_automation")
        _start_sensor(ui, automation)
        _wait("refresh_automation's first tick", ui, lambda: _ticks(ui, automation), timeout=90)
        assert _automation_runs(ui) == []

        # 3. An upstream file changes; the upstream sensor reports it on its first tick.
        summary = mirror / next(f.mirror_path for f in fixed_files() if f.family == FAMILY)
        stat = summary.stat()
        os.utime(summary, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
        upstream = _sensor_selector(ui, location, "upstream_change_sensor")
        _start_sensor(ui, upstream)
        _wait(
            "upstream_change_sensor's report of the change",
            ui,
            lambda: _reported(ui, ["upstream", FAMILY]),
            timeout=90,
        )

        # 4. The automation launches the family's run on its own, and it succeeds.
        runs = _wait("a run launched by refresh_automation", ui, lambda: _automation_runs(ui), timeout=150)
        (run,) = runs
        selected = {"/".join(k["path"]) for k in run["assetSelection"]}
        assert {f"landing/{FAMILY}", f"raw/{FAMILY}"} <= selected
        assert not any(k.startswith(("landing/", "raw/")) and FAMILY not in k for k in selected)
        status = ui.wait_for_run(run["runId"], timeout=240)
        assert status == "SUCCESS", f"{status}\n{ui.run_errors(run['runId'])}\n{ui.log_tail()}"
        page.goto(f"{ui.url}/runs/{run['runId']}")
        expect(page.get_by_text("Success", exact=True).first).to_be_visible()
        page.screenshot(path=str(artifacts_dir / "automation-02-run.png"))

    assert list((wh / "lake" / "raw" / FAMILY).glob("_partition=*/*.parquet"))
