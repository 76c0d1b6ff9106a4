"""``trace-warehouse docs``: the Data Docs, the dbt docs and the report over http on 127.0.0.1.

A browser does not open a ``file://`` link from an http page such as the Dagster UI, so the links in the
assets' and checks' metadata point here instead: ``<docs url>/docs/...`` and ``<docs url>/report/...``,
files under ``$WAREHOUSE_DIR/docs`` and ``$WAREHOUSE_DIR/report`` (nothing else of the warehouse is
served). Data Docs pages that checks queued but no ``docs/gx`` run rendered yet are rendered on request.
The docs URL is a setting (``TRACE_DOCS_URL``, default ``http://127.0.0.1:$TRACE_DOCS_PORT``, port 3001);
``make dev`` starts this server beside the UI.
"""

from __future__ import annotations

import html
import posixpath
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import quote, unquote, urlsplit

from pipelines.settings import Settings

SERVED = ("docs", "report")  # folders of $WAREHOUSE_DIR the server shows
_render_lock = threading.Lock()


def docs_link(settings: Settings, path: Path) -> str:
    """The http URL of ``path`` (a file under docs/ or report/) on the docs server."""
    relative = path.resolve().relative_to(settings.warehouse_dir.resolve())
    return f"{settings.docs_url}/{quote(relative.as_posix())}"


def link_for_file_url(settings: Settings, url: str) -> str:
    """A ``file://`` URL under the warehouse (as Great Expectations gives them) → its docs-server URL;
    any other URL unchanged."""
    parts = urlsplit(url)
    if parts.scheme != "file":
        return url
    path = Path(unquote(parts.path))
    try:
        link = docs_link(settings, path)
    except ValueError:  # not under the warehouse
        return url
    return link + (f"#{parts.fragment}" if parts.fragment else "")


def _index(settings: Settings) -> bytes:
    pages = [
        ("Great Expectations Data Docs", settings.docs_dir / "gx" / "index.html"),
        ("dbt docs", settings.docs_dir / "dbt" / "index.html"),
        ("dbt docs (one file)", settings.docs_dir / "dbt" / "static_index.html"),
        ("report", settings.report_dir / "report.md"),
    ]
    items = "".join(
        f'<li><a href="/{quote(p.relative_to(settings.warehouse_dir).as_posix())}">{html.escape(title)}</a></li>'
        if p.exists()
        else f"<li>{html.escape(title)}: not built yet</li>"
        for title, p in pages
    )
    return (
        f"<!doctype html><title>trace-warehouse docs</title><h1>trace-warehouse docs</h1>"
        f"<p>{html.escape(str(settings.warehouse_dir))}</p><ul>{items}</ul>"
    ).encode()


def _served_path(request_path: str) -> str:
    """The request's path under the warehouse, after ``..`` and ``%2e`` are resolved as the handler does."""
    return posixpath.normpath(unquote(urlsplit(request_path).path)).lstrip("/")


def _top_folder(request_path: str) -> str:
    """The first folder of the request's path."""
    return _served_path(request_path).split("/", 1)[0]


class _Handler(SimpleHTTPRequestHandler):
    settings: Settings
    extensions_map: ClassVar[dict[str, str]] = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".md": "text/markdown; charset=utf-8",
    }

    def do_GET(self) -> None:
        top = _top_folder(self.path)
        if top in ("", "."):
            body = _index(self.settings)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif top in SERVED:
            self._render_queued_data_docs()
            super().do_GET()
        else:
            self.send_error(404, "only docs/ and report/ are served")

    def _render_queued_data_docs(self) -> None:
        """Checks that ran without the ``docs/gx`` asset queued their pages: render them before serving."""
        from pipelines.validate.data_docs import has_queued_pages, render

        if not _served_path(self.path).startswith("docs/gx/") or not has_queued_pages(self.settings):
            return
        with _render_lock:
            try:
                render(self.settings)
            except Exception as exc:  # serve what is there; say why the page may be missing
                self.log_error("Data Docs not rendered: %s", exc)

    def do_HEAD(self) -> None:
        if _top_folder(self.path) in SERVED:
            super().do_HEAD()
        else:
            self.send_error(404, "only docs/ and report/ are served")

    def log_message(self, format: str, *args: object) -> None:  # quiet: no line per request
        return


def make_server(settings: Settings, port: int | None = None) -> ThreadingHTTPServer:
    """A server on 127.0.0.1 (port: ``port``, else the settings'; 0 picks a free one); not started."""
    handler = type("DocsHandler", (_Handler,), {"settings": settings})
    factory = partial(handler, directory=str(settings.warehouse_dir))
    return ThreadingHTTPServer(("127.0.0.1", settings.docs_port if port is None else port), factory)


def serve_in_thread(server: ThreadingHTTPServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, name="docs-server", daemon=True)
    thread.start()
    return thread
