"""``trace-warehouse docs``: the project's docs site, the Data Docs, the dbt docs and the report over http on
127.0.0.1.

The project's docs site (MkDocs, ``docs/mkdocs.yml`` of the checkout) is built into
``$WAREHOUSE_DIR/docs/site`` when it is first requested and missing or older than its sources, then served
like the rest of ``docs/``. A browser does not open a ``file://`` link from an http page such as the Dagster UI, so the links in the
assets' and checks' metadata point here instead: ``<docs url>/docs/...`` and ``<docs url>/report/...``,
files under ``$WAREHOUSE_DIR/docs`` and ``$WAREHOUSE_DIR/report`` (nothing else of the warehouse is
served). Data Docs pages that checks queued but no ``docs/gx`` run rendered yet are rendered on request.
The docs URL is a setting (``TRACE_DOCS_URL``, default ``http://127.0.0.1:$TRACE_DOCS_PORT``);
``make dev`` starts this server beside the UI.
"""

from __future__ import annotations

import html
import importlib.util
import os
import posixpath
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import quote, unquote, urlsplit

from pipelines.settings import PROJECT_ROOT, Settings, child_environment, load_settings

SERVED = ("docs", "report")  # folders of $WAREHOUSE_DIR the server shows
DOCS_SOURCE = PROJECT_ROOT / "docs"  # the project's docs site: mkdocs.yml, pages/, hooks.py
# Files outside docs/ that pages are generated from (docs/hooks.py): the settings table, the bench record.
GENERATED_FROM = (
    PROJECT_ROOT / "pipelines" / "settings.py",
    PROJECT_ROOT / "benchmarks" / "results" / "latest.md",
)
_render_lock = threading.Lock()
_site_lock = threading.Lock()


class SiteBuildError(RuntimeError):
    """The docs site could not be built; the message says why."""


def site_dir(settings: Settings) -> Path:
    """Where the project's docs site is built: ``$WAREHOUSE_DIR/docs/site``."""
    return settings.docs_dir / "site"


def site_url(settings: Settings) -> str:
    """The docs site's front page on the docs server."""
    return docs_link(settings, site_dir(settings) / "index.html")


def _site_sources(source: Path) -> Iterator[Path]:
    """The files the site is built from: everything under ``source`` but a local build (``site/``) and
    bytecode, and the files the hooks generate pages from."""
    for path in source.rglob("*"):
        relative = path.relative_to(source).parts
        if path.is_file() and relative[0] != "site" and "__pycache__" not in relative:
            yield path
    yield from (path for path in GENERATED_FROM if path.exists())


def site_is_stale(settings: Settings, source: Path = DOCS_SOURCE) -> bool:
    """True when the built site is missing or older than one of its sources."""
    index = site_dir(settings) / "index.html"
    if not index.exists():
        return True
    built = index.stat().st_mtime
    return any(path.stat().st_mtime > built for path in _site_sources(source))


def build_site(settings: Settings, source: Path = DOCS_SOURCE) -> Path:
    """``mkdocs build`` of ``source/mkdocs.yml`` into a fresh folder, swapped in for the site (a reader sees
    the old site or the new one, never half of one). Returns the site folder."""
    config = source / "mkdocs.yml"
    if not config.exists():
        raise SiteBuildError(f"no docs site to build: {config} is missing")
    if importlib.util.find_spec("mkdocs") is None:
        raise SiteBuildError("mkdocs is not installed (it is in the dev dependency group: uv sync)")
    target = site_dir(settings)
    target.parent.mkdir(parents=True, exist_ok=True)
    fresh = target.parent / f".site-new-{os.getpid()}"
    old = target.parent / f".site-old-{os.getpid()}"
    shutil.rmtree(fresh, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet", "-f", str(config), "-d", str(fresh)],
        env=child_environment(settings, NO_MKDOCS_2_WARNING="1"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        shutil.rmtree(fresh, ignore_errors=True)
        raise SiteBuildError(f"mkdocs build of {config} failed: {done.stderr.strip()[-2000:]}")
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    return target


def ensure_site(settings: Settings, source: Path = DOCS_SOURCE) -> Path:
    """The site folder, built first when it is missing or older than its sources."""
    with _site_lock:
        if site_is_stale(settings, source):
            build_site(settings, source)
    return site_dir(settings)


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


def _index(settings: Settings, source: Path) -> bytes:
    if (source / "mkdocs.yml").exists():
        site = (
            f'<li><a href="/{quote((site_dir(settings) / "index.html").relative_to(settings.warehouse_dir).as_posix())}">'
            "trace-warehouse documentation</a> (built from the checkout's docs/ when first opened)</li>"
        )
    else:
        site = "<li>trace-warehouse documentation: not available (no docs/mkdocs.yml)</li>"
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
        f"<p>{html.escape(str(settings.warehouse_dir))}</p><ul>{site}{items}</ul>"
    ).encode()


def _served_path(request_path: str) -> str:
    """The request's path under the warehouse, after ``..`` and ``%2e`` are resolved as the handler does."""
    return posixpath.normpath(unquote(urlsplit(request_path).path)).lstrip("/")


def _top_folder(request_path: str) -> str:
    """The first folder of the request's path."""
    return _served_path(request_path).split("/", 1)[0]


class _Handler(SimpleHTTPRequestHandler):
    settings: Settings
    docs_source: Path
    extensions_map: ClassVar[dict[str, str]] = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".md": "text/markdown; charset=utf-8",
    }

    def do_GET(self) -> None:
        top = _top_folder(self.path)
        if top in ("", "."):
            body = _index(self.settings, self.docs_source)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif top in SERVED:
            self._render_queued_data_docs()
            if not self._build_site_if_stale():
                return
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

    def _build_site_if_stale(self) -> bool:
        """A request under ``docs/site/``: build the site first when it is missing or stale. False (after
        an error response) when it cannot be built and there is none to serve."""
        if not (_served_path(self.path) + "/").startswith("docs/site/"):
            return True
        try:
            ensure_site(self.settings, self.docs_source)
        except (SiteBuildError, OSError) as exc:
            self.log_error("docs site not built: %s", exc)
            if not (site_dir(self.settings) / "index.html").exists():
                self.send_error(503, f"the docs site is not built: {exc}")
                return False
        return True

    def do_HEAD(self) -> None:
        if _top_folder(self.path) in SERVED:
            super().do_HEAD()
        else:
            self.send_error(404, "only docs/ and report/ are served")

    def log_message(self, format: str, *args: object) -> None:  # quiet: no line per request
        return


def make_server(
    settings: Settings, port: int | None = None, *, docs_source: Path = DOCS_SOURCE
) -> ThreadingHTTPServer:
    """A server on 127.0.0.1 (port: ``port``, else the settings'; 0 picks a free one); not started.
    ``docs_source``: the folder of the docs site's ``mkdocs.yml`` (default: the checkout's ``docs/``)."""
    handler = type("DocsHandler", (_Handler,), {"settings": settings, "docs_source": docs_source})
    factory = partial(handler, directory=str(settings.warehouse_dir))
    return ThreadingHTTPServer(("127.0.0.1", settings.docs_port if port is None else port), factory)


def serve_in_thread(server: ThreadingHTTPServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, name="docs-server", daemon=True)
    thread.start()
    return thread


if __name__ == "__main__":  # `make dev`: where the docs are (the server itself is `trace-warehouse docs`)
    current = load_settings()
    print(f"project docs: {site_url(current)}  (Data Docs, dbt docs, report: {current.docs_url}/)")
