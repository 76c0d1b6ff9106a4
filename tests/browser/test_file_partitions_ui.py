"""One metric of one cluster from the real webserver: the utilization families' file partitions.

Steps: start ``trace-warehouse dev`` on an empty warehouse (sample source); through the webserver's GraphQL
API — what the UI's launch dialog sends — launch a run of ``landing/`` and ``raw/acme__gpu_metrics`` for the
partition ``kalos/GPU_UTIL``; it must succeed and leave in landing/ and the lake exactly that file and its
Parquet, with the partition's ``rows`` equal to ``count(*)`` of that Parquet. Then backfill two more
partitions (one run, by the single-run backfill policy) and read the partition counts the webserver reports.
Chromium opens the raw asset's Partitions tab, which must count three materialized partitions, and the
partition's own metadata (screenshot). The artifacts go to
``test-artifacts/browser/``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pytest

from tests.support.dagster_ui import DagsterUI, DagsterUIError, dagster_ui

if TYPE_CHECKING:
    from playwright.sync_api import Page

FAMILY = "acme__gpu_metrics"
ASSETS = [{"path": ["landing", FAMILY]}, {"path": ["raw", FAMILY]}]
ONE = "kalos/GPU_UTIL"
MORE = ["kalos/PIPE_TENSOR_ACTIVE", "kalos/SM_ACTIVE"]  # neighbours in the key order: one range, one run
UTILIZATION = "huggingface/datasets/Qinghao/AcmeTrace/data/utilization"


def _repository(ui: DagsterUI) -> dict[str, str]:
    data = ui.graphql(
        "{ repositoriesOrError { ... on RepositoryConnection { nodes { name location { name } } } } }"
    )
    (repo,) = data["repositoriesOrError"]["nodes"]
    return {"repositoryLocationName": repo["location"]["name"], "repositoryName": repo["name"]}


def _launch_partition(ui: DagsterUI, repository: dict[str, str], partition: str) -> str:
    data = ui.graphql(
        """mutation($params: ExecutionParams!) { launchRun(executionParams: $params) {
             __typename ... on LaunchRunSuccess { run { runId } } ... on PythonError { message }
             ... on InvalidSubsetError { message } ... on RunConfigValidationInvalid { errors { message } } } }""",
        {
            "params": {
                "selector": {**repository, "jobName": "__ASSET_JOB", "assetSelection": ASSETS},
                "mode": "default",
                "executionMetadata": {"tags": [{"key": "dagster/partition", "value": partition}]},
            }
        },
    )["launchRun"]
    assert data["__typename"] == "LaunchRunSuccess", data
    return data["run"]["runId"]


def _backfill(ui: DagsterUI, partitions: list[str]) -> str:
    data = ui.graphql(
        """mutation($params: LaunchBackfillParams!) { launchPartitionBackfill(backfillParams: $params) {
             __typename ... on LaunchBackfillSuccess { backfillId } ... on PythonError { message } } }""",
        {"params": {"partitionNames": partitions, "assetSelection": ASSETS, "fromFailure": False}},
    )["launchPartitionBackfill"]
    assert data["__typename"] == "LaunchBackfillSuccess", data
    return data["backfillId"]


def _backfill_status(ui: DagsterUI, backfill_id: str) -> tuple[str, list[str]]:
    data = ui.graphql(
        """query($id: String!) { partitionBackfillOrError(backfillId: $id) {
             ... on PartitionBackfill { status runs(limit: 10) { runId status } } } }""",
        {"id": backfill_id},
    )["partitionBackfillOrError"]
    return data["status"], [r["status"] for r in data["runs"]]


def _partitions(ui: DagsterUI, asset: list[str]) -> tuple[int, int]:
    data = ui.graphql(
        """query($key: AssetKeyInput!) { assetNodeOrError(assetKey: $key) {
             ... on AssetNode { partitionStats { numMaterialized numPartitions } } } }""",
        {"key": {"path": asset}},
    )["assetNodeOrError"]["partitionStats"]
    return data["numMaterialized"], data["numPartitions"]


def _rows(ui: DagsterUI, partition: str) -> int:
    data = ui.graphql(
        """query($key: AssetKeyInput!, $p: [String!]) { assetNodeOrError(assetKey: $key) {
             ... on AssetNode { assetMaterializations(partitions: $p, limit: 1) {
               partition metadataEntries { label ... on IntMetadataEntry { intValue } } } } } }""",
        {"key": {"path": ["raw", FAMILY]}, "p": [partition]},
    )["assetNodeOrError"]["assetMaterializations"]
    (event,) = data
    assert event["partition"] == partition
    return next(e["intValue"] for e in event["metadataEntries"] if e["label"] == "rows")


def _parquet_rows(wh: Path, stem: str) -> int:
    files = sorted((wh / "lake" / "raw" / FAMILY).glob(f"_partition=*/{stem}.parquet"))
    assert files, f"no Parquet of {stem} in the lake"
    listed = ", ".join(f"'{f}'" for f in files)
    return duckdb.sql(f"select count(*) from read_parquet([{listed}])").fetchall()[0][0]


def _wait(what: str, ui: DagsterUI, probe: Callable[[], object], timeout: float) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(2)
    raise DagsterUIError(f"{what}: not within {timeout:.0f}s\n{ui.log_tail()}")


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_one_metric_of_one_cluster_loads_alone_and_the_rest_backfills(
    new_page: Callable[[], Page], artifacts_dir: Path, tmp_path: Path
) -> None:
    page = new_page()  # first: fails at once if Chromium is missing
    from playwright.sync_api import expect

    wh = tmp_path / "warehouse"
    with dagster_ui(wh, artifacts_dir / "dagster-dev-partitions.log") as ui:
        ui.wait_for_code_locations(timeout=90)
        repository = _repository(ui)
        assert _partitions(ui, ["raw", FAMILY]) == (0, 30)  # 2 clusters x (14 DCGM metrics + other)

        # 1. Kalos GPU_UTIL alone: landing and the lake hold that file and nothing else.
        run_id = _launch_partition(ui, repository, ONE)
        status = ui.wait_for_run(run_id, timeout=300)
        assert status == "SUCCESS", f"run {run_id}: {status}\n{ui.run_errors(run_id)}\n{ui.log_tail()}"
        landed = sorted(
            p.relative_to(wh / "landing" / UTILIZATION).as_posix()
            for p in wh.glob(f"landing/{UTILIZATION}/**/*.csv")
        )
        assert landed == ["kalos/GPU_UTIL.csv"]
        in_lake = {p.name for p in (wh / "lake" / "raw").glob("*/_partition=*/*.parquet")}
        assert in_lake == {"kalos-GPU_UTIL.parquet"}
        assert _partitions(ui, ["raw", FAMILY]) == (1, 30)
        rows = _rows(ui, ONE)
        assert rows == _parquet_rows(wh, "kalos-GPU_UTIL") > 0

        # 2. Backfill two more: one run over their range; each partition gets its own count.
        backfill_id = _backfill(ui, MORE)
        _wait(
            "the backfill's completion",
            ui,
            lambda: _backfill_status(ui, backfill_id)[0] in ("COMPLETED", "COMPLETED_SUCCESS", "FAILED"),
            timeout=400,
        )
        status, runs = _backfill_status(ui, backfill_id)
        assert status in ("COMPLETED", "COMPLETED_SUCCESS") and runs == ["SUCCESS"], (
            status,
            runs,
            ui.log_tail(),
        )
        assert _partitions(ui, ["raw", FAMILY]) == (3, 30)
        for partition in MORE:
            stem = partition.replace("/", "-")
            assert _rows(ui, partition) == _parquet_rows(wh, stem) > 0
        assert _rows(ui, ONE) == rows  # untouched by the backfill
        in_lake = {p.name for p in (wh / "lake" / "raw").glob("*/_partition=*/*.parquet")}
        assert in_lake == {"kalos-GPU_UTIL.parquet", *(f"{p.replace('/', '-')}.parquet" for p in MORE)}

        # 3. The raw asset's partitions page in the browser.
        page.goto(f"{ui.url}/assets/raw/{FAMILY}?view=partitions")
        expect(page.get_by_text("Materialized (3)")).to_be_visible(timeout=30_000)
        page.get_by_text(ONE, exact=True).first.click()
        expect(page.get_by_text("files_table", exact=True)).to_be_visible()
        page.screenshot(path=str(artifacts_dir / "partitions-01-raw-gpu-metrics.png"))
