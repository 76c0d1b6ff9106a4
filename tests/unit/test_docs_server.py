"""The docs server: docs/ and report/ of the warehouse over http on 127.0.0.1, nothing else of it."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from pipelines.docs_server import docs_link, link_for_file_url, make_server, serve_in_thread
from pipelines.settings import Settings, load_settings


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
