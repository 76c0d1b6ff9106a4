"""Data Docs under $WAREHOUSE_DIR/docs/gx/: one page per family and frame, families side by side, a page
rendered only when its frame was validated again, the last few runs of each page kept."""

from __future__ import annotations

from pathlib import Path

from pipelines.settings import Settings
from pipelines.validate.data_docs import KEEP_RUNS
from tests.integration.test_validation_support import (
    BURST_HEADER,
    SEREN_HEADER,
    load_csv,
    seren_line,
    validate,
)


def _pages(site: Path, family: str, frame: str) -> list[Path]:
    return sorted((site / "validations" / family / frame).rglob("*.html"))


def test_families_side_by_side_and_runs_pruned(warehouse: Settings, tmp_path: Path) -> None:
    load_csv(warehouse, tmp_path, "trace_seren.csv", f"{SEREN_HEADER}\n{seren_line(1)}\n")
    load_csv(warehouse, tmp_path, "BurstGPT_1.csv", f"{BURST_HEADER}\n5,ChatGPT,1,2,3,API log\n")
    burst = validate(warehouse, "burstgpt__requests", docs=True)
    for n in range(KEEP_RUNS + 1):  # each run changes the file: a new page of each frame
        load_csv(warehouse, tmp_path, "trace_seren.csv", f"{SEREN_HEADER}\n{seren_line(1 + n)}\n")
        seren = validate(warehouse, "acme__seren_jobs", docs=True)
    site = warehouse.docs_dir / "gx"
    unchanged = validate(warehouse, "acme__seren_jobs", docs=True)
    assert unchanged.units_validated == 0 and unchanged.docs_pages == seren.docs_pages  # no new page
    assert seren.docs_index == (site / "index.html").as_uri() == burst.docs_index
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "burstgpt__requests.rows" in index and "acme__seren_jobs.rows" in index  # B's run kept A's page
    assert len(_pages(site, "acme__seren_jobs", "rows")) == KEEP_RUNS
    assert len(_pages(site, "burstgpt__requests", "rows")) == 1
    stored = (
        warehouse.docs_dir / "gx-context" / "gx" / "uncommitted" / "validations" / "acme__seren_jobs" / "rows"
    )
    assert len(list(stored.rglob("*.json"))) == KEEP_RUNS
    assert set(seren.docs_pages) == {
        "acme__seren_jobs.schema",
        "acme__seren_jobs.rows",
        "acme__seren_jobs.family",
    }
    suite_page = site / "expectations" / "acme__seren_jobs" / "rows.html"
    assert "gpu_time_is_duration_times_gpu_num" in suite_page.read_text(encoding="utf-8")
