"""The benchmark harness end to end at a tiny scale: it writes its results with every expected key, and a
calibration table with published values. Never a timing assertion (DESIGN §9: speed only in benchmarks/).

The engine phases (validation, dbt, reports, the Dagster graph) and the utilization load are skipped to
keep this under a minute; `make bench-smoke` runs every phase.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.harness import STAGE_DESCRIPTIONS, main
from benchmarks.published import published_numbers
from benchmarks.results import TOP_LEVEL_KEYS
from benchmarks.targets import TARGETS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

# Spark is measured by `make bench` and tested by test_spark_parity.py; here it would only add minutes.
SKIPPED = ("validate", "dbt_build", "dbt_build_spark", "report", "pipeline_total", "load_utilization")
STAGE_KEYS = (
    "status",
    "wall_s",
    "startup_s",
    "work_s",
    "fixed_s",
    "rows",
    "rows_per_s",
    "mb_per_s",
    "peak_rss_mb",
)
RAN = (
    "generate",
    "fetch",
    "load",
    "bare_read",
    "pandas_notebook",
    "refresh_load",
    "memory_1x",
    "calibration_load",
)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench")
    argv = ["--scale", "0.001", "--runs", "1", "--probe-runs", "0", "--util-nodes", "2"]
    argv += [
        "--skip",
        ",".join(SKIPPED),
        "--results-dir",
        str(root / "results"),
        "--work-dir",
        str(root / "work"),
    ]
    assert main(argv) == 0
    return root / "results"


@pytest.fixture(scope="module")
def doc(results: Path) -> dict:
    return json.loads((results / "latest.json").read_text("utf-8"))


def test_files_written(results: Path) -> None:
    stamped = list((results / "history").glob("*.json"))
    assert len(stamped) == 1
    assert stamped[0].name.split("-")[1].removesuffix(".json")  # <UTC timestamp>-<commit>[-dirty].json
    assert json.loads(stamped[0].read_text("utf-8")) == json.loads(
        (results / "latest.json").read_text("utf-8")
    )
    assert (results / "latest.md").read_text("utf-8").startswith("# Benchmark results")


def test_every_top_level_and_stage_key(doc: dict) -> None:
    assert set(doc) == set(TOP_LEVEL_KEYS)
    assert doc["options"]["scale"] == 0.001
    assert set(doc["stages"]) == set(STAGE_DESCRIPTIONS)
    for name, stage in doc["stages"].items():
        assert set(STAGE_KEYS) <= set(stage), name
    for name in RAN:
        assert doc["stages"][name]["status"] == "ok", (name, doc["stages"][name]["note"])
        assert name in doc["stages_ran"]
        assert doc["stages"][name]["run_records"], name
    for name in ("validate", "dbt_build", "report", "pipeline_total", "load_utilization"):
        assert doc["stages"][name]["status"] == "skipped"


def test_ratios_and_targets_reported(doc: dict) -> None:
    assert {"load_over_bare_read", "pipeline_over_pandas", "refresh_over_full", "memory_4x_over_1x"} <= set(
        doc["ratios"]
    )
    assert doc["ratios"]["load_over_bare_read"]["value"] is not None
    assert [t["key"] for t in doc["targets"]] == [t.key for t in TARGETS]
    for target in doc["targets"]:
        assert {"measured", "limit", "passed", "verdict"} <= set(target)
    assert set(doc["memory_vs_size"]["sizes"]) == {"0.25x", "1x", "4x"}
    assert doc["refresh"]["appended_rows"] > 0
    refresh = doc["stages"]["refresh_load"]["detail"]
    assert refresh["files_landed_again"] == 1  # only the appended file; the others are unchanged
    assert refresh["partitions_written"] == [f"{doc['refresh']['new_day_index']:04d}"]
    assert list(refresh["files_reloaded"].values()) == ["append"]  # BurstGPT_2 grew: its tail alone parsed
    assert refresh["lines_parsed"] == doc["refresh"]["appended_rows"]


def test_calibration_rows_have_published_values(doc: dict, results: Path) -> None:
    calibration = doc["calibration"]
    rows = calibration["rows"]
    assert [r["key"] for r in rows] == [p.key for p in published_numbers()]
    assert all(isinstance(r["published"], int | float) for r in rows)
    assert not calibration["query_errors"]
    measured = [r for r in rows if r["generated"] is not None]
    assert len(measured) == len(rows)
    assert calibration["passed"] + calibration["failed"] == len(rows)
    markdown = (results / "latest.md").read_text("utf-8")
    for section in ("## Targets", "## Stages", "## Ratios", "## Memory", "## Calibration"):
        assert section in markdown
