"""A small HTTP server on 127.0.0.1 that serves a mirror folder the way the upstreams do.

URL schemes (all on one ephemeral port, so ``TRACE_GITHUB_RAW_URL``, ``TRACE_GITHUB_URL`` and
``HF_ENDPOINT`` can all point at it — see :meth:`MirrorServer.env`):

- ``/<owner>/<repo>/<branch>/<path>`` → ``github/<owner>/<repo>/<path>`` (GitHub raw)
- ``/<owner>/<repo>/releases/download/<tag>/<file>`` → ``github/<owner>/<repo>/releases/download/<tag>/…``
- ``/datasets/<ns>/<repo>/resolve/<rev>/<path>`` → ``huggingface/datasets/<ns>/<repo>/<path>``, with the
  Hub's ``X-Repo-Commit``; with ``lfs_redirect=True`` it answers like the real Hub for LFS files: a 302 to
  ``/cdn/<mirror path>`` carrying ``X-Linked-Etag``/``X-Linked-Size``/``X-Repo-Commit``
- ``/MANIFEST.json`` → the mirror's ``MANIFEST.json``
- the HuggingFace API calls huggingface_hub 2.4 makes: ``GET /api/datasets/<ns>/<repo>/tree/<rev>[/<path>]``
  (``recursive``, paginated with a ``Link`` header), ``GET /api/datasets/<ns>/<repo>[/revision/<rev>]``,
  ``POST /api/datasets/<ns>/<repo>/paths-info/<rev>``; errors carry ``X-Error-Code`` as the Hub's do.

Files answer HEAD and GET with a quoted sha256 ``ETag``, ``Content-Length``, ``Accept-Ranges: bytes``,
``Range`` → 206 (416 past the end) and ``If-None-Match`` → 304. Every request is logged (method, path,
``Range``, a few headers) for tests to assert on, and faults can be injected per URL path:
:meth:`fail_times`, :meth:`not_found`, :meth:`cut_after`, :meth:`delay`, :meth:`override_body`.

Also here: :func:`write_mirror`, which builds a small mirror folder with its ``MANIFEST.json``.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from pipelines.families.registry import fixed_files
from pipelines.families.upstream import UpstreamFile, discover_utilization
from pipelines.sources import mirror_manifest as mm

DEFAULT_COMMIT = "0123456789abcdef0123456789abcdef01234567"
LOGGED_HEADERS = ("authorization", "range", "if-none-match", "if-range", "user-agent", "accept-encoding")

_API = re.compile(r"^/api/datasets/(?P<ns>[^/]+)/(?P<repo>[^/]+)(?P<rest>/.*)?$")
_RESOLVE = re.compile(r"^/datasets/(?P<ns>[^/]+)/(?P<repo>[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)$")
_RELEASE = re.compile(r"^/(?P<owner>[^/]+)/(?P<repo>[^/]+)/releases/download/(?P<path>.+)$")
_RAW = re.compile(r"^/(?P<owner>[^/]+)/(?P<repo>[^/]+)/(?P<branch>[^/]+)/(?P<path>.+)$")
_RANGE = re.compile(r"^bytes=(\d+)-(\d*)$")


@dataclass(frozen=True)
class LoggedRequest:
    method: str
    path: str  # URL path, percent-decoded, without the query
    query: str
    range: str | None
    headers: Mapping[str, str]  # the LOGGED_HEADERS present, lower-case names


@dataclass
class _Fault:
    kind: str  # fail | not_found | cut | delay | body
    remaining: int | None  # None: every time
    method: str | None = None
    status: int = 500
    nbytes: int = 0
    seconds: float = 0.0
    body: bytes = b""

    def applies(self, method: str) -> bool:
        return (self.remaining is None or self.remaining > 0) and self.method in (None, method)

    def use(self) -> None:
        if self.remaining is not None:
            self.remaining -= 1


@dataclass
class _Reply:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    cut_after: int | None = None  # send only this many body bytes, then drop the connection


class MirrorServer:
    """Serve ``root`` (a mirror folder) on ``127.0.0.1:<ephemeral port>``; a context manager."""

    def __init__(
        self,
        root: Path,
        *,
        commit: str = DEFAULT_COMMIT,
        tree_page_size: int = 1000,
        lfs_redirect: bool = False,
    ) -> None:
        self.root = Path(root)
        self.commit = commit
        self.tree_page_size = tree_page_size
        self.lfs_redirect = lfs_redirect
        self._lock = threading.Lock()
        self._log: list[LoggedRequest] = []
        self._faults: dict[str, list[_Fault]] = {}
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -----------------------------------------------------------------------------------------
    def start(self) -> MirrorServer:
        handler = type("Handler", (_Handler,), {"mirror": self})
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in a delay()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> MirrorServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def env(self, **extra: str) -> dict[str, str]:
        """Environment for ``load_settings``: remote mode with every upstream pointing at this server."""
        return {
            "TRACE_SOURCE": "remote",
            "TRACE_GITHUB_RAW_URL": self.url,
            "TRACE_GITHUB_URL": self.url,
            "HF_ENDPOINT": self.url,
            **extra,
        }

    # request log ---------------------------------------------------------------------------------------
    @property
    def requests(self) -> list[LoggedRequest]:
        with self._lock:
            return list(self._log)

    def requests_to(self, path: str, method: str | None = None) -> list[LoggedRequest]:
        return [r for r in self.requests if r.path == path and method in (None, r.method)]

    def clear_log(self) -> None:
        with self._lock:
            self._log.clear()

    def _record(self, request: LoggedRequest) -> None:
        with self._lock:
            self._log.append(request)

    # fault injection (``path`` is the URL path, e.g. ``/InternLM/AcmeTrace/master/data/x.csv``) ---------
    def _add(self, path: str, fault: _Fault) -> None:
        with self._lock:
            self._faults.setdefault(path, []).append(fault)

    def fail_times(self, path: str, status: int, n: int, *, method: str | None = None) -> None:
        """Answer the next ``n`` requests (of ``method``, default any) with ``status``."""
        self._add(path, _Fault("fail", n, method, status=status))

    def not_found(self, path: str) -> None:
        """Answer 404 from now on, whether or not the file exists."""
        self._add(path, _Fault("not_found", None, status=404))

    def cut_after(self, path: str, nbytes: int, times: int = 1) -> None:
        """The next ``times`` GETs send the full ``Content-Length`` header but drop after ``nbytes`` bytes."""
        self._add(path, _Fault("cut", times, "GET", nbytes=nbytes))

    def delay(self, path: str, seconds: float, times: int | None = None) -> None:
        """Wait ``seconds`` before answering (``times`` requests, default every one)."""
        self._add(path, _Fault("delay", times, seconds=seconds))

    def override_body(self, path: str, body: bytes) -> None:
        """Serve ``body`` instead of the file (headers follow the new body)."""
        self._add(path, _Fault("body", None, body=body))

    def reset_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def _take(self, path: str, kind: str, method: str) -> _Fault | None:
        with self._lock:
            for fault in self._faults.get(path, []):
                if fault.kind == kind and fault.applies(method):
                    fault.use()
                    return fault
        return None

    # answering -----------------------------------------------------------------------------------------
    def answer(self, method: str, path: str, query: str, headers: Mapping[str, str], body: bytes) -> _Reply:
        if (d := self._take(path, "delay", method)) is not None:
            self._stopping.wait(d.seconds)
        if self._take(path, "not_found", method) is not None:
            return _json_reply(404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"})
        if (f := self._take(path, "fail", method)) is not None:
            return _Reply(f.status, {"Content-Type": "text/plain"}, f"injected HTTP {f.status}\n".encode())
        if m := _API.match(path):
            return self._api(method, m, query, body)
        if path == "/" + mm.MANIFEST_NAME:
            return self._file(method, path, self.root / mm.MANIFEST_NAME, headers)
        if path.startswith("/cdn/"):
            return self._file(method, path, self._local(path.removeprefix("/cdn/")), headers, cdn=True)
        if m := _RESOLVE.match(path):
            mirror_path = f"huggingface/datasets/{m['ns']}/{m['repo']}/{m['path']}"
            if m["rev"] not in ("main", self.commit):
                return _json_reply(404, {"error": "Revision not found"}, {"X-Error-Code": "RevisionNotFound"})
            if self.lfs_redirect and self._local(mirror_path).is_file():
                return self._redirect(path, mirror_path)
            return self._file(method, path, self._local(mirror_path), headers, hub=True)
        if m := _RELEASE.match(path):
            local = self._local(f"github/{m['owner']}/{m['repo']}/releases/download/{m['path']}")
            return self._file(method, path, local, headers)
        if m := _RAW.match(path):
            return self._file(
                method, path, self._local(f"github/{m['owner']}/{m['repo']}/{m['path']}"), headers
            )
        return _Reply(404, {"Content-Type": "text/plain"}, b"Not Found\n")

    def _local(self, mirror_path: str) -> Path:
        parts = [p for p in mirror_path.split("/") if p]
        if any(p in (".", "..") for p in parts):
            return self.root / "\0invalid"
        return self.root.joinpath(*parts)

    def _content(self, path: str, local: Path) -> bytes | None:
        if (f := self._take(path, "body", "*")) is not None:  # an override stays in force
            return f.body
        return local.read_bytes() if local.is_file() else None

    def _file(
        self,
        method: str,
        path: str,
        local: Path,
        headers: Mapping[str, str],
        *,
        hub: bool = False,
        cdn: bool = False,
    ) -> _Reply:
        content = self._content(path, local)
        extra = {"X-Repo-Commit": self.commit} if hub else {}
        if content is None:
            error = {"X-Error-Code": "EntryNotFound"} if hub else {}
            return _Reply(404, {"Content-Type": "text/plain", **extra, **error}, b"404: Not Found\n")
        sha = hashlib.sha256(content).hexdigest()
        etag = f'"cdn-{sha[:16]}"' if cdn else f'"{sha}"'
        base = {"ETag": etag, "Accept-Ranges": "bytes", "Content-Type": "text/plain; charset=utf-8", **extra}
        if headers.get("if-none-match") in (etag, etag.strip('"')):
            return _Reply(304, base)
        start, end = 0, len(content) - 1
        status = 200
        if (rng := headers.get("range")) and (m := _RANGE.match(rng.strip())):
            start = int(m[1])
            end = min(int(m[2]), end) if m[2] else end
            if start >= len(content):
                return _Reply(416, {**base, "Content-Range": f"bytes */{len(content)}"})
            status = 206
            base["Content-Range"] = f"bytes {start}-{end}/{len(content)}"
        body = content[start : end + 1]
        reply = _Reply(status, {**base, "Content-Length": str(len(body))}, b"" if method == "HEAD" else body)
        if method == "GET" and (cut := self._take(path, "cut", "GET")) is not None:
            reply.cut_after = cut.nbytes
        return reply

    def _redirect(self, path: str, mirror_path: str) -> _Reply:
        content = self._content(path, self._local(mirror_path)) or b""
        return _Reply(
            302,
            {
                "Location": "/cdn/" + mirror_path,
                "X-Repo-Commit": self.commit,
                "X-Linked-Etag": f'"{hashlib.sha256(content).hexdigest()}"',
                "X-Linked-Size": str(len(content)),
                "ETag": f'"{hashlib.sha1(content).hexdigest()}"',  # the git blob's id, as on the Hub
            },
        )

    # HuggingFace API -----------------------------------------------------------------------------------
    def _api(self, method: str, m: re.Match[str], query: str, body: bytes) -> _Reply:
        repo_id = f"{m['ns']}/{m['repo']}"
        repo_root = self.root / "huggingface" / "datasets" / m["ns"] / m["repo"]
        if not repo_root.is_dir():
            return _json_reply(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
        rest = (m["rest"] or "").strip("/")
        kind, _, tail = rest.partition("/")
        rev, _, sub = tail.partition("/")
        if kind and rev not in ("main", self.commit):
            return _json_reply(404, {"error": "Revision not found"}, {"X-Error-Code": "RevisionNotFound"})
        if kind in ("", "revision") and method in ("GET", "HEAD"):
            return _json_reply(200, self._repo_info(repo_id, repo_root))
        if kind == "tree" and method == "GET":
            return self._tree(m, repo_root, sub, parse_qs(query))
        if kind == "paths-info" and method == "POST":
            wanted = parse_qs(body.decode("utf-8")).get("paths", [])
            entries = [self._entry(repo_root, repo_root / p) for p in wanted if (repo_root / p).exists()]
            return _json_reply(200, entries)
        return _json_reply(404, {"error": f"unknown API call {method} {rest}"})

    def _repo_info(self, repo_id: str, repo_root: Path) -> dict[str, Any]:
        siblings = [{"rfilename": p.relative_to(repo_root).as_posix()} for p in _walk(repo_root)]
        return {
            "_id": hashlib.sha1(repo_id.encode()).hexdigest()[:24],
            "id": repo_id,
            "author": repo_id.split("/")[0],
            "sha": self.commit,
            "lastModified": "2024-01-01T00:00:00.000Z",
            "private": False,
            "gated": False,
            "disabled": False,
            "downloads": 0,
            "likes": 0,
            "tags": [],
            "siblings": siblings,
            "cardData": {},
        }

    def _entry(self, repo_root: Path, p: Path) -> dict[str, Any]:
        rel = p.relative_to(repo_root).as_posix()
        if p.is_dir():
            return {
                "type": "directory",
                "oid": hashlib.sha1(rel.encode()).hexdigest(),
                "size": 0,
                "path": rel,
            }
        content = p.read_bytes()
        return {
            "type": "file",
            "oid": hashlib.sha1(content).hexdigest(),
            "size": len(content),
            "path": rel,
            "lfs": {"oid": hashlib.sha256(content).hexdigest(), "size": len(content), "pointerSize": 133},
        }

    def _tree(self, m: re.Match[str], repo_root: Path, sub: str, params: Mapping[str, list[str]]) -> _Reply:
        folder = repo_root / sub if sub else repo_root
        if not folder.is_dir():
            return _json_reply(404, {"error": f"{sub} does not exist"}, {"X-Error-Code": "EntryNotFound"})
        recursive = params.get("recursive", ["false"])[0].lower() in ("true", "1")
        children = sorted(folder.rglob("*") if recursive else folder.iterdir())
        entries = [self._entry(repo_root, p) for p in children if not p.name.startswith(".")]
        cursor = int(params.get("cursor", ["0"])[0])
        page = entries[cursor : cursor + self.tree_page_size]
        headers: dict[str, str] = {}
        if cursor + self.tree_page_size < len(entries):
            base = f"{self.url}/api/datasets/{m['ns']}/{m['repo']}/tree/main/{sub}"
            nxt = f"{base}?recursive={str(recursive).lower()}&cursor={cursor + self.tree_page_size}"
            headers["Link"] = f'<{nxt}>; rel="next"'
        return _json_reply(200, page, headers)


def _walk(root: Path) -> Iterable[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))


def _json_reply(status: int, doc: Any, headers: Mapping[str, str] | None = None) -> _Reply:
    return _Reply(status, {"Content-Type": "application/json", **(headers or {})}, json.dumps(doc).encode())


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mirror: MirrorServer  # set on the subclass made by MirrorServer.start()

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_HEAD(self) -> None:
        self._serve("HEAD")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        split = urlsplit(self.path)
        path = unquote(split.path)
        headers = {k.lower(): v for k, v in self.headers.items()}
        length = int(headers.get("content-length", "0") or 0)
        body = self.rfile.read(length) if length else b""
        logged = {k: headers[k] for k in LOGGED_HEADERS if k in headers}
        self.mirror._record(LoggedRequest(method, path, split.query, headers.get("range"), logged))
        try:
            reply = self.mirror.answer(method, path, split.query, headers, body)
            self._send(method, reply)
        except (ConnectionError, TimeoutError):
            self.close_connection = True

    def _send(self, method: str, reply: _Reply) -> None:
        self.send_response(reply.status)
        headers = dict(reply.headers)
        if "Content-Length" not in headers:
            headers["Content-Length"] = str(len(reply.body)) if reply.status != 304 else "0"
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if method == "HEAD" or reply.status == 304:
            return
        if reply.cut_after is None:
            self.wfile.write(reply.body)
            return
        self.wfile.write(reply.body[: reply.cut_after])
        self.wfile.flush()
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)


def write_mirror(
    root: Path,
    files: Mapping[str, bytes],
    *,
    origins: Mapping[str, str] | None = None,
    real_lines: Mapping[str, list[list[int]]] | None = None,
    extra: Mapping[str, Mapping[str, Any]] | None = None,
    unlisted: Iterable[str] = (),
) -> mm.MirrorManifest:
    """Write ``files`` (mirror path → bytes) under ``root`` and a ``MANIFEST.json`` listing all but
    ``unlisted`` (origin ``synthetic`` unless ``origins`` says otherwise)."""
    skip = set(unlisted)
    entries: dict[str, mm.MirrorEntry] = {}
    for mirror_path, content in files.items():
        target = root / mirror_path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        if mirror_path in skip:
            continue
        entries[mirror_path] = mm.MirrorEntry(
            bytes=len(content),
            sha256=hashlib.sha256(content).hexdigest(),
            origin=(origins or {}).get(mirror_path, "synthetic"),  # type: ignore[arg-type]
            real_lines=tuple(tuple(r) for r in (real_lines or {}).get(mirror_path, [])),  # type: ignore[misc]
            extra=dict((extra or {}).get(mirror_path, {})),
        )
    manifest = mm.MirrorManifest(entries, {"generator": "tests.support.write_mirror"})
    root.mkdir(parents=True, exist_ok=True)
    mm.write(root, manifest)
    return manifest


# --- a tiny mirror at catalog paths ---------------------------------------------------------------------

HF = "huggingface/datasets/Qinghao/AcmeTrace/"
KALOS_JOBS = "github/InternLM/AcmeTrace/data/job_trace/trace_kalos.csv"
SEREN_JOBS = "github/InternLM/AcmeTrace/data/job_trace/trace_seren.csv"
BURSTGPT_1 = "github/HPMLL/BurstGPT/releases/download/v1.1/BurstGPT_1.csv"
HELIOS = HF + "data/job_trace/trace_previous_work/helios_trace.csv"
GPU_UTIL = HF + "data/utilization/kalos/GPU_UTIL.csv"
GPU_UTIL_PIECE = HF + "data/utilization/kalos/GPU_UTIL-2023-07-01.csv"  # shadowed by the whole file
NODE_CPU_PIECES = (
    HF + "data/utilization/seren/NODE_CPU_UTILIZATION-2023-07-01.csv",
    HF + "data/utilization/seren/NODE_CPU_UTILIZATION-2023-07-02.csv",
)
ODD_METRIC = HF + "data/utilization/seren/ODD_METRIC.csv"  # a metric DATASETS.md does not document
IPMI = HF + "data/utilization/ipmi/GPU_AB_Power.csv"
LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4bb3783693d0a435686fbfc885615d2349bd067239079fa4b749f2e679e12122\n"
    b"size 52283111\n"
)


def _burstgpt_rows(n: int) -> bytes:
    lines = ["Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"]
    for i in range(n):
        req, resp = 100 + i % 997, (i * 7) % 613
        model = "GPT-4" if i % 5 == 0 else "ChatGPT"
        lines.append(
            f"{5 + i * 3},{model},{req},{resp},{req + resp},{'API log' if i % 3 else 'Conversation log'}"
        )
    return ("\n".join(lines) + "\n").encode()


def _util(header: str, rows: int, start: int = 0) -> bytes:
    body = [header] + [
        f"2023-07-01 08:{(start + i) // 4:02d}:{(start + i) % 4 * 15:02d}+08:00,{i}.5,{i}"
        for i in range(rows)
    ]
    return ("\n".join(body) + "\n").encode()


def tiny_mirror_files() -> dict[str, bytes]:
    """A few small CSVs at catalog mirror paths; BurstGPT_1 is ~200 KB so transfers can be cut and resumed."""
    return {
        KALOS_JOBS: (
            b"job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,"
            b"start_time,end_time,fail_time,stop_time,duration,queue,gpu_time\n"
            b"dlctk696s0jbvitv,u1,1,8,64,512,0.0,Pretrain,COMPLETED,2023-06-01 00:00:00+00:00,"
            b"2023-06-01 00:00:10+00:00,2023-06-01 00:00:18+00:00,,,18,10.0,144\n"
            b"dlcsynth00000001,u2,1,1,8,64,0.0,Eval,FAILED,2023-06-01 00:01:00+00:00,"
            b"2023-06-01 00:01:05+00:00,2023-06-01 00:02:05+00:00,2023-06-01 00:02:05+00:00,,60,5.0,60\n"
        ),
        SEREN_JOBS: (
            b"job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n"
            b"1,u5907,1,8,64,SFT,COMPLETED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:23+08:00,"
            b"2023-03-01 00:20:23+08:00,120,1,960\n"
        ),
        BURSTGPT_1: _burstgpt_rows(5000),
        HELIOS: b"job_id,user,gpu_num,state,duration,queue\nh1,u1,8,COMPLETED,100,3\n",
        GPU_UTIL: _util("Time,10.140.1.10-0,10.140.1.10-1", 8),
        GPU_UTIL_PIECE: _util("Time,10.140.1.10-0,10.140.1.10-1", 4),
        NODE_CPU_PIECES[0]: _util("Time,10.140.1.10,10.140.1.11", 4),
        NODE_CPU_PIECES[1]: _util("Time,10.140.1.10,10.140.1.11", 4, start=4),
        ODD_METRIC: _util("Time,10.140.1.10,10.140.1.11", 2),
        IPMI: b"Time,Sys_Total_Power,CPU_Power,Memory_Power\n2023-07-01 08:00:00+08:00,3000,400,\n",
    }


def write_tiny_mirror(root: Path, *, unlisted: Iterable[str] = ()) -> dict[str, bytes]:
    """Write :func:`tiny_mirror_files` with a MANIFEST.json: Kalos ``mixed`` (line 2 real), Helios with an
    ``unverified_layout`` note, the rest ``synthetic``; returns the files."""
    files = tiny_mirror_files()
    write_mirror(
        root,
        files,
        origins={KALOS_JOBS: "mixed"},
        real_lines={KALOS_JOBS: [[2, 2]]},
        extra={HELIOS: {"unverified_layout": True, "note": "header assumed from the upstream notebook"}},
        unlisted=unlisted,
    )
    return files


def upstream_files(mirror_paths: Iterable[str]) -> list[UpstreamFile]:
    """The catalog's UpstreamFile for each mirror path (utilization ones via discovery)."""
    wanted = list(mirror_paths)
    listing = [p.removeprefix(HF) for p in wanted if p.startswith(HF + "data/utilization/")]
    known = {f.mirror_path: f for f in (*fixed_files(), *discover_utilization(listing).files)}
    return [known[p] for p in wanted]
