"""The docs server: docs/ and report/ of the warehouse over http on 127.0.0.1, nothing else of it; the
project's docs site built into docs/site when it is missing or older than its sources."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipelines.docs_server import (
    docs_link,
    link_for_file_url,
    make_server,
    serve_in_thread,
    site_dir,
    site_is_stale,
    site_url,
)
from pipelines.settings import PROJECT_ROOT, Settings, load_settings


@pytest.fixture
def served(warehouse: Settings) -> Iterator[tuple[Settings, str]]:
    (warehouse.docs_dir / "gx").mkdir(parents=True)
    (warehouse.docs_dir / "gx" / "index.html").write_text("<html>Data Docs</html>")
    warehouse.report_dir.mkdir(parents=True)
    (warehouse.report_dir / "report.md").write_text("# report")
    (warehouse.warehouse_dir / "trace.duckdb").write_bytes(b"secret")
    server = make_server(warehouse, port=0)
    serve_in_thread(server)
    try:
        yield warehouse, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def test_docs_and_report_are_served_and_nothing_else(served: tuple[Settings, str]) -> None:
    _, url = served
    assert _get(f"{url}/docs/gx/index.html") == (200, "<html>Data Docs</html>")
    assert _get(f"{url}/report/report.md") == (200, "# report")
    status, index = _get(f"{url}/")
    assert status == 200 and 'href="/docs/gx/index.html"' in index and "dbt docs: not built yet" in index
    assert 'href="/docs/site/index.html"' in index  # the project's docs site, built when first opened
    for path in ("/trace.duckdb", "/docs/../trace.duckdb", "/docs/%2e%2e/trace.duckdb", "/.dagster/"):
        assert _get(url + path)[0] == 404, path


def test_links_point_at_the_docs_server(warehouse: Settings) -> None:
    page = warehouse.docs_dir / "gx" / "validations" / "a b.html"
    assert docs_link(warehouse, page) == "http://127.0.0.1:3001/docs/gx/validations/a%20b.html"
    assert link_for_file_url(warehouse, page.as_uri()) == docs_link(warehouse, page)
    assert link_for_file_url(warehouse, "file:///elsewhere/x.html") == "file:///elsewhere/x.html"
    assert link_for_file_url(warehouse, "https://example.org/x") == "https://example.org/x"


def test_docs_url_and_port_settings() -> None:
    assert load_settings({"TRACE_DOCS_PORT": "4100"}).docs_url == "http://127.0.0.1:4100"
    custom = load_settings({"TRACE_DOCS_URL": "http://docs.example:8080/"})
    assert custom.docs_url == "http://docs.example:8080" and custom.docs_port == 3001


@pytest.fixture
def small_site(tmp_path: Path) -> Path:
    """A docs source of two pages on MkDocs' own theme: the build and its staleness, in about a second."""
    source = tmp_path / "docs-source"
    (source / "pages").mkdir(parents=True)
    (source / "mkdocs.yml").write_text("site_name: small\ndocs_dir: pages\nuse_directory_urls: false\n")
    (source / "pages" / "index.md").write_text("# Front\n\nSee [the other page](other.md).\n")
    (source / "pages" / "other.md").write_text("# Other\n\nfirst text\n")
    return source


def _serve(settings: Settings, source: Path) -> Iterator[str]:
    server = make_server(settings, port=0, docs_source=source)
    serve_in_thread(server)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_docs_site_is_built_when_missing_or_stale(warehouse: Settings, small_site: Path) -> None:
    for url in _serve(warehouse, small_site):
        assert site_is_stale(warehouse, small_site)
        status, front = _get(f"{url}/docs/site/index.html")
        assert status == 200 and "Front" in front
        assert (site_dir(warehouse) / "other.html").exists() and not site_is_stale(warehouse, small_site)
        built = (site_dir(warehouse) / "index.html").stat().st_mtime_ns
        assert _get(f"{url}/docs/site/other.html")[1].count("first text") == 1
        assert (site_dir(warehouse) / "index.html").stat().st_mtime_ns == built  # fresh: not built again

        page = small_site / "pages" / "other.md"
        page.write_text("# Other\n\nsecond text\n")
        later = (site_dir(warehouse) / "index.html").stat().st_mtime + 5
        os.utime(page, (later, later))
        assert site_is_stale(warehouse, small_site)
        assert "second text" in _get(f"{url}/docs/site/other.html")[1]
        assert not list(warehouse.docs_dir.glob(".site-*"))  # built aside, then swapped in


def test_a_site_that_cannot_be_built_is_an_error_page(warehouse: Settings, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "mkdocs.yml").write_text("site_name: broken\ndocs_dir: missing-folder\n")
    for url in _serve(warehouse, broken):
        assert _get(f"{url}/docs/site/index.html")[0] == 503
    for url in _serve(warehouse, tmp_path / "no-docs"):
        assert "documentation: not available" in _get(f"{url}/")[1]


def test_make_dev_prints_the_docs_site_link(warehouse: Settings) -> None:
    assert site_url(warehouse) == "http://127.0.0.1:3001/docs/site/index.html"
    printed = subprocess.run(
        [sys.executable, "-m", "pipelines.docs_server"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert "project docs: http://127.0.0.1:3001/docs/site/index.html" in printed
    assert "python -m pipelines.docs_server" in (PROJECT_ROOT / "Makefile").read_text()
