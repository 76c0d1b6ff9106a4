"""Playwright on the system Chromium (no browser download), one page per test, artifacts under
``test-artifacts/browser/`` at the project root.

Chromium is required, not optional: `make test` installs it (`make system-deps`); when it is missing the
tests FAIL with the install command, they are never skipped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support.dagster_ui import PROJECT_ROOT

if TYPE_CHECKING:
    from playwright.sync_api import Page

ARTIFACTS_DIR = PROJECT_ROOT / "test-artifacts" / "browser"
CHROMIUM = os.environ.get("CHROMIUM_EXECUTABLE", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
INSTALL_HINT = "make system-deps"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Remember each phase's report on the item, so fixtures can tell whether the test failed."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS_DIR


def _require_chromium() -> None:
    if not Path(CHROMIUM).is_file() or not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: the browser tests need Debian's Chromium "
            f"(`{INSTALL_HINT}` installs it; `make test` runs that) or CHROMIUM_EXECUTABLE=/path/to/chromium. "
            "`playwright install` is not used: it downloads a browser.",
            pytrace=False,
        )


@pytest.fixture
def new_page(artifacts_dir: Path, request: pytest.FixtureRequest) -> Iterator[Callable[[], Page]]:
    """A factory for one fresh page (1600x1000) on the system Chromium.

    Called in the test's body, so that a missing Chromium makes the test FAIL (not error, not skip). Dagster's
    first-visit "Join the Dagster community" dialog is not dismissed: the project's dagster.yaml turns it off
    (``nux: enabled: false``), and a dialog in the way fails the test. If the test fails, the page is saved
    as ``<test>-failure.png``.
    """
    opened: dict[str, Any] = {}
    safe_name = re.sub(r"[^\w.-]+", "_", request.node.name)
    failure_png = artifacts_dir / f"{safe_name}-failure.png"
    failure_png.unlink(missing_ok=True)  # from an earlier run

    def make() -> Page:
        _require_chromium()
        from playwright.sync_api import sync_playwright

        opened["pw"] = pw = sync_playwright().start()
        opened["browser"] = browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1600, "height": 1000})
        context.set_default_timeout(30_000)
        opened["page"] = page = context.new_page()
        return page

    try:
        yield make
    finally:
        rep = getattr(request.node, "rep_call", None)
        if "page" in opened and rep is not None and rep.failed:
            try:
                opened["page"].screenshot(path=str(failure_png))
            except Exception as exc:  # the page may be gone; the test's own error is what matters
                print(f"could not save the failure screenshot: {exc}")
        if "browser" in opened:
            opened["browser"].close()
        if "pw" in opened:
            opened["pw"].stop()
