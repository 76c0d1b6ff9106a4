"""The benchmark harness end to end at a tiny scale: it writes its results with every expected key, and a
calibration table with published values. Never a timing assertion (speed only in benchmarks/).

The engine phases (validation, dbt, reports, the Dagster graph) and the utilization load are skipped to
keep this under a minute; `make bench-smoke` runs every phase. The whole-set phase runs alone at a tiny size
(its own fixture): the whole graph three times, a few minutes of the graph's fixed cost.
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
# The whole-set phase has its own fixture below.
SKIPPED = (
    "validate",
    "dbt_build",
    "dbt_build_spark",
    "report",
    "pipeline_total",
    "load_utilization",
    "whole_set",
)
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


# The whole-set phase alone, at a tiny size (2 nodes × 1 day, the other files at scale 0.001): the whole graph
# three times (new, re-run, after one new day) — minutes, most of them the graph's fixed cost.
WHOLE_SET_STAGES = (
    "whole_set_generate",
    "whole_set_graph",
    "whole_set_rerun",
    "whole_set_refresh",
    "whole_set_pyarrow",
    "whole_set_cookbook",
)
WHOLE_SET_TARGETS = (
    "whole_set_speed",
    "whole_set_80gb",
    "whole_set_memory",
    "whole_set_disk",
    "whole_set_refresh",
    "whole_set_rerun",
    "cookbook_queries",
)


@pytest.fixture(scope="module")
def whole_set_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench-whole-set")
    argv = [
        "--scale",
        "0.001",
        "--runs",
        "1",
        "--probe-runs",
        "0",
        "--util-nodes",
        "2",
        "--only",
        "whole_set",
    ]
    argv += ["--results-dir", str(root / "results"), "--work-dir", str(root / "work")]
    assert main(argv) == 0
    return root / "results"


@pytest.fixture(scope="module")
def whole_set_doc(whole_set_results: Path) -> dict:
    return json.loads((whole_set_results / "latest.json").read_text("utf-8"))


@pytest.mark.timeout(1800)
def test_whole_set_stages_ran(whole_set_doc: dict) -> None:
    for name in WHOLE_SET_STAGES:
        stage = whole_set_doc["stages"][name]
        assert stage["status"] == "ok", (name, stage["note"])
    w = whole_set_doc["whole_set"]
    assert w["utilization_files"] > 0 and w["csv_bytes"] > w["utilization_bytes"] > 0
    assert w["disk"]["total_bytes"] > 0
    assert w["refresh"]["files_appended"] > 0 and w["refresh"]["appended_rows"] > 0


@pytest.mark.timeout(1800)
def test_whole_set_layers_and_slowest_nodes(whole_set_doc: dict) -> None:
    detail = whole_set_doc["stages"]["whole_set_graph"]["detail"]
    assert {"landing", "raw", "checks", "staging", "marts", "reports", "docs"} <= set(detail["layers"])
    assert all(seconds >= 0 for seconds in detail["layers"].values())
    assert 0 < len(detail["slowest"]) <= 15
    seconds = [n["seconds"] for n in detail["slowest"]]
    assert seconds == sorted(seconds, reverse=True)
    queries = whole_set_doc["stages"]["whole_set_cookbook"]["detail"]["queries"]
    assert len(queries) == 5
    assert all(q["warehouse_s"] > 0 and q["lake_s"] > 0 for q in queries.values())


@pytest.mark.timeout(1800)
def test_whole_set_targets_and_markdown(whole_set_doc: dict, whole_set_results: Path) -> None:
    targets = {t["key"]: t for t in whole_set_doc["targets"]}
    for key in WHOLE_SET_TARGETS:
        assert targets[key]["measured"] is not None, (key, targets[key]["verdict"])
    # every other phase was left out by --only: its targets say so
    skipped = [t for t in whole_set_doc["targets"] if t["key"] not in WHOLE_SET_TARGETS]
    assert skipped and all("--only" in t["verdict"] for t in skipped)
    markdown = (whole_set_results / "latest.md").read_text("utf-8")
    for section in ("## Whole set", "Time per layer", "Slowest nodes", "Cookbook queries", "80 GB"):
        assert section in markdown
