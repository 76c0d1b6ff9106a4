"""Data Docs under $WAREHOUSE_DIR/docs/gx/: one page per family and frame, families side by side, a page
rendered only when its frame was validated again, the last few runs of each page kept."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import urlopen

from pipelines.docs_server import link_for_file_url, make_server, serve_in_thread
from pipelines.settings import Settings
from pipelines.validate.data_docs import KEEP_RUNS
from pipelines.validate.validation import validate_family
from tests.support.validation import (
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


def test_queued_pages_render_on_request(warehouse: Settings, tmp_path: Path) -> None:
    """Checks run without ``docs/gx`` (a raw asset materialized alone) queue their pages; the docs server
    renders them when one is requested, so a check's link always opens its page."""
    load_csv(warehouse, tmp_path, "BurstGPT_1.csv", f"{BURST_HEADER}\n5,ChatGPT,1,2,3,API log\n")
    result = validate_family(warehouse, "burstgpt__requests", publish_docs=True)  # recorded, not rendered
    page = Path(urlsplit(result.docs_pages["burstgpt__requests.rows"]).path)
    assert not page.exists()
    server = make_server(warehouse, port=0)
    serve_in_thread(server)
    try:
        link = link_for_file_url(warehouse, page.as_uri()).replace(
            warehouse.docs_url, f"http://127.0.0.1:{server.server_address[1]}"
        )
        with urlopen(link, timeout=60) as response:
            assert response.status == 200 and b"burstgpt__requests.rows" in response.read()
    finally:
        server.shutdown()
    assert page.exists() and not (warehouse.docs_dir / "gx-context" / "pending.json").exists()
