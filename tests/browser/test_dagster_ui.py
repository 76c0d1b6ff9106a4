"""The Dagster UI in a real browser: a user materializes a raw asset by clicking, and sees its row count.

Steps: land ``landing/burstgpt__requests`` through the CLI into a tmp warehouse; start ``trace-warehouse
dev`` on that warehouse (own process group, free port); in Chromium, open the global asset lineage
filtered to the raw asset and its upstream (screenshot); open the raw asset's page (never materialized);
click "Materialize"; wait for that run to succeed; reload the asset page and read the row count it shows
("Row count" and the ``rows`` metadata entry), which must equal ``count(*)`` of ``raw.burstgpt__requests``
in DuckDB; open a check of the asset on its Checks tab and click its Data Docs link, which opens Great
Expectations' page from the docs server ``trace-warehouse dev`` started beside the UI. GraphQL is used
only to *wait* (code location loaded, run finished), never to launch.

Screenshots and the server's log go to ``test-artifacts/browser/``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest

from tests.e2e.cli import query, run_cli
from tests.support.dagster_ui import dagster_ui

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

FAMILY = "burstgpt__requests"
RAW_KEY = ["raw", FAMILY]
CHECK = "request_not_failed"  # a rule with findings on the sample: its check links to its Data Docs page
LANDING_KEY = ["landing", FAMILY]
RUN_TIMEOUT_S = 150  # the first load takes ~30 s on 2 cores


def _number(text: str, what: str) -> int:
    """``"21,264"`` → 21264; anything that is not a plain (grouped) integer fails the test."""
    digits = re.sub(r"[,\s\u202f\u00a0]", "", text)
    assert digits.isdigit(), f"{what}: expected an integer on the asset page, got {text!r}"
    return int(digits)


def _row_count_tag(page: Page) -> Locator:
    """The value next to the "Row count" heading in the asset page's Status section."""
    return page.get_by_text("Row count", exact=True).locator("xpath=..")


def _metadata_value(page: Page, key: str) -> Locator:
    """The Value cell of ``key``'s row in the asset page's Metadata table."""
    row = page.get_by_role("row").filter(has=page.get_by_text(key, exact=True))
    return row.get_by_role("cell").last


def _open_lineage(page: Page, url: str) -> None:
    """Global asset lineage, filtered to the raw asset and its parents, both groups expanded."""
    from playwright.sync_api import expect

    # The lineage page keeps its selection in the path (typing it into the CodeMirror search box dropped
    # keystrokes now and then); the groups are expanded by clicking them.
    selection = quote(f'+key:"{"/".join(RAW_KEY)}"', safe="")
    page.goto(f"{url}/asset-groups~{selection}/")
    expect(page.get_by_text(f'+key:"{"/".join(RAW_KEY)}"')).to_be_visible()
    graph = page.locator("svg foreignObject")  # the graph's nodes are HTML inside the SVG
    for group in ("landing", "raw"):  # collapsed group nodes; a click expands one
        graph.get_by_text(group, exact=True).locator("visible=true").first.click()
    expect(graph.get_by_text(FAMILY, exact=True).locator("visible=true")).to_have_count(2)


def _open_data_docs_of_a_check(page: Page, url: str, docs_url: str, artifacts_dir: Path) -> None:
    """From the raw asset's Checks tab, open CHECK and click its ``data_docs`` link: a new tab with GX's page."""
    from playwright.sync_api import expect

    page.goto(f"{url}/assets/{'/'.join(RAW_KEY)}?view=checks")
    page.get_by_role("link", name=CHECK, exact=True).or_(page.get_by_text(CHECK, exact=True)).first.click()
    link = page.locator(f'a[href^="{docs_url}/docs/gx/"]').first
    expect(link).to_be_visible()
    page.screenshot(path=str(artifacts_dir / "04-check-data-docs-link.png"))
    with page.context.expect_page() as opened:
        link.click()
    docs = opened.value
    docs.wait_for_load_state("domcontentloaded")  # its CSS comes from CDNs, unreachable offline
    assert docs.url.startswith(f"{docs_url}/docs/gx/"), docs.url
    expect(docs).to_have_title(re.compile("Great Expectations"))
    expect(docs.get_by_text(re.compile(rf"{FAMILY}\.\w+")).first).to_be_visible()
    docs.screenshot(path=str(artifacts_dir / "05-data-docs-page.png"))
    docs.close()


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_materialize_raw_asset_from_the_ui(
    new_page: Callable[[], Page], artifacts_dir: Path, tmp_path: Path
) -> None:
    page = new_page()  # first: fails at once if Chromium is missing
    from playwright.sync_api import expect

    started = time.monotonic()
    timings: dict[str, float] = {}

    def lap(name: str) -> None:
        timings[name] = round(time.monotonic() - started, 1)

    wh = tmp_path / "warehouse"
    env = {"WAREHOUSE_DIR": str(wh), "DAGSTER_HOME": str(wh / ".dagster")}
    landed = run_cli("run", "--select", f'key:"{"/".join(LANDING_KEY)}"', env=env, timeout=180)
    assert landed.returncode == 0, landed.stdout[-2000:] + landed.stderr[-3000:]
    lap("landed via CLI")

    with dagster_ui(wh, artifacts_dir / "dagster-dev.log") as ui:
        ui.wait_for_code_locations(timeout=60)
        lap("UI up")

        # 1. The asset graph.
        _open_lineage(page, ui.url)
        page.screenshot(path=str(artifacts_dir / "01-asset-lineage.png"))
        lap("graph")

        # 2. The raw asset's page: not materialized yet, so any row count shown later comes from our run.
        page.goto(f"{ui.url}/assets/{'/'.join(RAW_KEY)}")
        expect(page.get_by_text("Never materialized")).to_be_visible()
        expect(page.get_by_text("Join the Dagster community")).to_have_count(0)  # nux off in dagster.yaml
        expect(page.get_by_text("Row count", exact=True)).to_have_count(0)

        # 3. Launch from the UI, like a user: the "Materialize" button (its name also carries its icon's label).
        known_runs = ui.run_ids()
        page.get_by_role("button", name=re.compile(r"\bMaterialize$")).click()
        launched = page.get_by_text(re.compile(r"Launched run \w+"))
        confirm = page.get_by_role("dialog").get_by_role("button", name=re.compile(r"^Launch"))
        expect(launched.or_(confirm).first).to_be_visible()
        if confirm.count() and confirm.first.is_visible():  # e.g. a partitions or "upstream" dialog
            confirm.first.click()
        expect(launched).to_be_visible()
        toast_id = re.search(r"Launched run (\w+)", launched.inner_text()).group(1)
        run_id = ui.wait_for_new_run(RAW_KEY, known_runs, timeout=30)
        assert run_id.startswith(toast_id), f"the UI launched {toast_id}, but the new run is {run_id}"
        lap("launched")

        # 4. Wait for the run (GraphQL as the wait condition), then see it succeed on its page.
        status = ui.wait_for_run(run_id, timeout=RUN_TIMEOUT_S)
        assert status == "SUCCESS", f"run {run_id}: {status}\n{ui.run_errors(run_id)}\n{ui.log_tail()}"
        lap("run succeeded")
        page.goto(f"{ui.url}/runs/{run_id}")
        expect(page.get_by_text("Success", exact=True).first).to_be_visible()
        page.screenshot(path=str(artifacts_dir / "02-run-success.png"))

        # 5. Reload the asset page: the row count it shows must be the table's.
        page.goto(f"{ui.url}/assets/{'/'.join(RAW_KEY)}")
        expect(page.get_by_text("Row count", exact=True)).to_be_visible()
        expect(_metadata_value(page, "rows")).to_be_visible()
        page.screenshot(path=str(artifacts_dir / "03-asset-materialized.png"))
        shown_row_count = _number(_row_count_tag(page).inner_text().replace("Row count", "", 1), "Row count")
        shown_rows = _number(_metadata_value(page, "rows").inner_text(), "metadata `rows`")
        lap("asset page checked")

        # 6. A check of the asset (the run validated it): its Data Docs link opens the GX page, served
        #    over http beside the UI (a file:// link would not open from the UI's http page).
        _open_data_docs_of_a_check(page, ui.url, ui.docs_url, artifacts_dir)
        lap("Data Docs opened")

        (in_duckdb,) = query(wh, f"select count(*) from raw.{FAMILY}")[0]

    print(f"timings (s since start): {timings}")
    assert in_duckdb > 0
    assert shown_row_count == in_duckdb, f"UI Row count {shown_row_count} != DuckDB count(*) {in_duckdb}"
    assert shown_rows == in_duckdb, f"UI metadata rows {shown_rows} != DuckDB count(*) {in_duckdb}"
