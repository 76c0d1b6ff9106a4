"""Resumable, retried, conditional HTTP download of one file (httpx).

The bytes stream into a ``.part`` file (by default ``<dest>.part``; the landing layer keeps it in a hidden
side folder) next to a small ``.part.json`` sidecar recording which remote version the bytes belong to.
A cut transfer — a connection error, a timeout, a body shorter than its ``Content-Length`` — is retried
with exponential backoff and resumes with ``Range: bytes=N-``: a ``206`` of the same version appends, a
``200`` (the server ignored the range) or a ``206`` of another version restarts from zero. 5xx, 408 and
429 are retried too; after ``HttpOptions.attempts`` attempts a :class:`DownloadError` names the URL and the
last reason. 404, 403 and every other 4xx fail at once. Only a complete, verified ``.part`` is renamed onto
``dest`` (``os.replace``), so ``dest`` is never partial.

Conditional re-fetch: given the ``RemoteState`` (ETag, size) recorded at the last download, a ``HEAD``
comes first and an unchanged file makes no ``GET`` at all.

Request headers (an ``Authorization`` header included) never appear in errors or logs.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

import httpx

log = logging.getLogger(__name__)

Progress = Callable[[int, "int | None"], None]
Verify = Callable[[Path], None]

RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
HEAD_UNSUPPORTED = frozenset({405, 501})
_CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+|\*)$")
T = TypeVar("T")


@dataclass(frozen=True)
class HttpOptions:
    """How hard to try: attempts per file, per-request timeout (s), backoff base and cap (s)."""

    attempts: int = 5
    timeout: float = 30.0
    backoff: float = 1.0
    max_backoff: float = 30.0
    progress_steps: int = 4  # progress lines per file (at 25 %, 50 %, … when the size is known)

    def sleep_before(self, attempt: int) -> float:
        """Seconds to wait before attempt ``attempt`` (2, 3, …)."""
        return min(self.max_backoff, self.backoff * 2 ** (attempt - 2))


@dataclass(frozen=True)
class RemoteState:
    """What the server says about a file's version: ETag, size and (HuggingFace) the repo commit.

    Behind a redirect (HuggingFace ``resolve`` → CDN) the Hub's ``X-Linked-Etag``/``X-Linked-Size`` and
    ``X-Repo-Commit`` of the first hop win over the CDN's own headers.
    """

    etag: str | None
    bytes: int | None
    revision: str | None = None

    @classmethod
    def from_response(cls, response: httpx.Response) -> RemoteState:
        chain = [*response.history, response]
        linked_etag = _first_header(chain, "X-Linked-Etag")
        linked_size = _first_header(chain, "X-Linked-Size")
        size = _int_or_none(linked_size) if linked_size else _body_size(response)
        return cls(
            etag=normalize_etag(linked_etag or response.headers.get("ETag")),
            bytes=size,
            revision=_first_header(chain, "X-Repo-Commit"),
        )

    def same_version(self, other: RemoteState) -> bool:
        """True when both carry the same ETag and no known size differs."""
        if self.etag is None or self.etag != other.etag:
            return False
        return self.bytes is None or other.bytes is None or self.bytes == other.bytes


@dataclass(frozen=True)
class DownloadResult:
    changed: bool  # False: the HEAD showed the recorded version, nothing was downloaded
    state: RemoteState
    attempts: int = 0  # GET attempts made (0 when unchanged)
    resumed_from: int = 0  # bytes of an earlier partial transfer that were kept (0: none)


class DownloadError(RuntimeError):
    """A download that failed for good; the message names the URL and the reason."""

    def __init__(self, url: str, reason: str, *, status: int | None = None) -> None:
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason
        self.status = status


class _Restart(Exception):
    """The partial file was dropped (another version, bad range); ask again from byte zero."""


class _Retryable(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def normalize_etag(etag: str | None) -> str | None:
    if not etag:
        return None
    value = etag.strip()
    value = value.removeprefix("W/")
    return value.strip('"') or None


def _first_header(chain: list[httpx.Response], name: str) -> str | None:
    for r in chain:
        if value := r.headers.get(name):
            return value
    return None


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _encoded(response: httpx.Response) -> bool:
    return response.headers.get("Content-Encoding", "identity").lower() not in ("", "identity")


def _body_size(response: httpx.Response) -> int | None:
    """Size of the whole file per this response: Content-Range total of a 206, else Content-Length."""
    if response.status_code == 206:
        m = _CONTENT_RANGE.match(response.headers.get("Content-Range", ""))
        return int(m[3]) if m and m[3] != "*" else None
    if _encoded(response):
        return None
    return _int_or_none(response.headers.get("Content-Length"))


class _Throttle:
    """Calls ``progress`` a few times per file: at each 1/steps of the size, or every 64 MiB if unknown."""

    UNKNOWN_STEP = 64 << 20

    def __init__(self, progress: Progress | None, steps: int) -> None:
        self.progress = progress
        self.steps = max(1, steps)
        self.next_mark = 0

    def start(self, done: int, total: int | None) -> None:
        self.next_mark = self._mark_after(done, total)

    def _mark_after(self, done: int, total: int | None) -> int:
        step = max(1, total // self.steps) if total else self.UNKNOWN_STEP
        return (done // step + 1) * step

    def update(self, done: int, total: int | None) -> None:
        if self.progress is None or done < self.next_mark:
            return
        if total and done >= total:
            self.next_mark = total + 1  # the final call comes from finish()
            return
        self.progress(done, total)
        self.next_mark = self._mark_after(done, total)

    def finish(self, done: int, total: int | None) -> None:
        if self.progress is not None:
            self.progress(done, total)


# --- the .part file and its sidecar ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Partial:
    part: Path

    @property
    def meta(self) -> Path:
        return self.part.with_name(self.part.name + ".json")

    def size(self) -> int:
        try:
            return self.part.stat().st_size
        except FileNotFoundError:
            return 0

    def read_meta(self) -> dict[str, object] | None:
        try:
            doc = json.loads(self.meta.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        return doc if isinstance(doc, dict) else None

    def write_meta(self, url: str, state: RemoteState) -> None:
        self.meta.parent.mkdir(parents=True, exist_ok=True)
        doc = {"url": url, "etag": state.etag, "bytes": state.bytes}
        self.meta.write_text(json.dumps(doc) + "\n", encoding="utf-8")

    def discard(self) -> None:
        self.part.unlink(missing_ok=True)
        self.meta.unlink(missing_ok=True)


def _resumable_from(partial: _Partial, url: str) -> int:
    """Bytes of an earlier transfer of ``url`` that may be resumed (0 discards anything unusable)."""
    have = partial.size()
    meta = partial.read_meta()
    if have and (meta is None or meta.get("url") != url):
        partial.discard()
        return 0
    return have


def _matches_partial(partial: _Partial, state: RemoteState) -> bool:
    meta = partial.read_meta() or {}
    etag, size = meta.get("etag"), meta.get("bytes")
    if etag is not None and state.etag is not None and etag != state.etag:
        return False
    return size is None or state.bytes is None or size == state.bytes


# --- requests -------------------------------------------------------------------------------------------


def _status_error(url: str, response: httpx.Response) -> DownloadError | _Retryable | None:
    code = response.status_code
    if code < 400:
        return None
    phrase = response.reason_phrase or "error"
    if code in RETRY_STATUSES:
        return _Retryable(f"HTTP {code} {phrase}")
    if code == 404 or code == 410:
        return DownloadError(url, f"not found (HTTP {code} {phrase})", status=code)
    if code in (401, 403):
        return DownloadError(
            url, f"access denied (HTTP {code} {phrase}); check the URL and token", status=code
        )
    return DownloadError(url, f"HTTP {code} {phrase}", status=code)


def _head(client: httpx.Client, url: str, headers: Mapping[str, str]) -> RemoteState | None:
    """The server's current version of ``url``; None when the server does not answer HEAD."""
    try:
        response = client.head(url, headers={**headers, "Accept-Encoding": "identity"})
    except httpx.TransportError as exc:
        raise _Retryable(f"HEAD failed: {type(exc).__name__}: {exc}") from exc
    if response.status_code in HEAD_UNSUPPORTED:
        return None
    if response.status_code == 304:
        return RemoteState(normalize_etag(response.headers.get("ETag")), None)
    if (err := _status_error(url, response)) is not None:
        raise err
    return RemoteState.from_response(response)


@dataclass
class _Transfer:
    url: str
    partial: _Partial
    headers: Mapping[str, str]
    throttle: _Throttle
    resumed_from: int = 0  # bytes kept by the last resumed (206) attempt

    def attempt(self, client: httpx.Client) -> RemoteState:
        """One attempt; a partial file that turns out unusable is dropped and the GET restarts from zero."""
        try:
            return self._get(client)
        except _Restart:
            pass
        try:
            return self._get(client)
        except _Restart as exc:
            raise _Retryable("the server answered a GET from byte zero with an unusable range") from exc

    def _get(self, client: httpx.Client) -> RemoteState:
        have = _resumable_from(self.partial, self.url)
        request_headers = {**self.headers, "Accept-Encoding": "identity"}
        if have:
            request_headers["Range"] = f"bytes={have}-"
        try:
            with client.stream("GET", self.url, headers=request_headers) as response:
                return self._receive(response, have)
        except httpx.TransportError as exc:
            raise _Retryable(
                f"transfer cut after {self.partial.size()} bytes: {type(exc).__name__}: {exc}"
            ) from exc

    def _receive(self, response: httpx.Response, have: int) -> RemoteState:
        if response.status_code == 416 and have:
            self.partial.discard()  # the partial file is as long as the remote one or longer
            raise _Restart
        if (err := _status_error(self.url, response)) is not None:
            raise err
        state = RemoteState.from_response(response)
        if response.status_code == 206:
            if not (self._continues(response, have) and _matches_partial(self.partial, state)):
                self.partial.discard()  # it belongs to another version of the file
                raise _Restart
            self.resumed_from = have
        else:
            have = 0  # 200: the whole body follows (a server may ignore Range)
        self.partial.write_meta(self.url, state)
        return self._stream(response, have, state)

    @staticmethod
    def _continues(response: httpx.Response, have: int) -> bool:
        m = _CONTENT_RANGE.match(response.headers.get("Content-Range", ""))
        return bool(m) and int(m[1]) == have

    def _stream(self, response: httpx.Response, have: int, state: RemoteState) -> RemoteState:
        total = state.bytes
        done = have
        self.partial.part.parent.mkdir(parents=True, exist_ok=True)
        self.throttle.start(done, total)
        # No chunk size: bytes are written as they arrive, so a cut transfer keeps everything received.
        chunks: Iterator[bytes] = response.iter_bytes() if _encoded(response) else response.iter_raw()
        with open(self.partial.part, "ab" if have else "wb") as out:
            for chunk in chunks:
                out.write(chunk)
                done += len(chunk)
                self.throttle.update(done, total)
        if total is not None and done < total:
            raise _Retryable(f"truncated body: got {done} of {total} bytes")
        if _encoded(response):
            self.partial.meta.unlink(missing_ok=True)  # encoded bytes cannot be resumed by range
        self.throttle.finish(done, total)
        return replace(state, bytes=done)


def _retrying(url: str, what: str, options: HttpOptions, call: Callable[[], T]) -> tuple[T, int]:
    """Run ``call`` up to ``options.attempts`` times; returns its value and the attempts used."""
    last = ""
    for attempt in range(1, options.attempts + 1):
        if attempt > 1:
            wait = options.sleep_before(attempt)
            log.warning(
                "%s: %s attempt %d/%d after: %s (waiting %.2fs)",
                url,
                what,
                attempt,
                options.attempts,
                last,
                wait,
            )
            time.sleep(wait)
        try:
            return call(), attempt
        except _Retryable as exc:
            last = exc.reason
    raise DownloadError(url, f"{what} failed after {options.attempts} attempts; last error: {last}")


@contextlib.contextmanager
def _client_for(client: httpx.Client | None, options: HttpOptions) -> Iterator[httpx.Client]:
    if client is not None:
        yield client
        return
    with make_client(options) as own:
        yield own


def make_client(options: HttpOptions | None = None) -> httpx.Client:
    """An httpx client that follows redirects (GitHub releases, HuggingFace LFS) with the given timeout."""
    options = options or HttpOptions()
    return httpx.Client(follow_redirects=True, timeout=httpx.Timeout(options.timeout))


def download(
    url: str,
    dest: Path,
    *,
    part: Path | None = None,
    client: httpx.Client | None = None,
    headers: Mapping[str, str] | None = None,
    previous: RemoteState | None = None,
    options: HttpOptions | None = None,
    progress: Progress | None = None,
    verify: Verify | None = None,
) -> DownloadResult:
    """Download ``url`` onto ``dest`` (see the module docstring).

    ``previous``: the version recorded at the last download of a ``dest`` that is still intact; when the
    server's HEAD shows the same ETag (and size), nothing is fetched and ``changed`` is False.
    ``verify(part)`` runs on the complete ``.part`` before the rename; if it raises, the ``.part`` is deleted
    and the exception propagates (a complete but wrong file is not worth resuming).
    """
    options = options or HttpOptions()
    headers = dict(headers or {})
    partial = _Partial(part or dest.with_name(dest.name + ".part"))
    with _client_for(client, options) as http:
        if previous is not None and previous.etag is not None:
            current, _ = _retrying(url, "HEAD", options, lambda: _head(http, url, headers))
            if current is not None and previous.same_version(current):
                return DownloadResult(False, replace(current, bytes=current.bytes or previous.bytes))
            if current is not None and not _matches_partial(partial, current):
                partial.discard()
        throttle = _Throttle(progress, options.progress_steps)
        transfer = _Transfer(url, partial, headers, throttle)
        try:
            state, attempts = _retrying(url, "download", options, lambda: transfer.attempt(http))
        except DownloadError as exc:
            if exc.status is not None:  # gone or forbidden: nothing worth resuming
                partial.discard()
            raise
    _finish(partial, dest, verify)
    return DownloadResult(True, state, attempts, transfer.resumed_from)


def _finish(partial: _Partial, dest: Path, verify: Verify | None) -> None:
    try:
        if verify is not None:
            verify(partial.part)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(partial.part, dest)
    except BaseException:
        partial.discard()
        raise
    partial.meta.unlink(missing_ok=True)


def fetch_bytes(
    url: str,
    *,
    client: httpx.Client | None = None,
    headers: Mapping[str, str] | None = None,
    options: HttpOptions | None = None,
    missing: frozenset[int] = frozenset({404}),
) -> bytes | None:
    """GET a small document into memory, retried like a download; None when the status is in ``missing``."""
    options = options or HttpOptions()

    def once(http: httpx.Client) -> bytes | None:
        try:
            response = http.get(url, headers=dict(headers or {}))
        except httpx.TransportError as exc:
            raise _Retryable(f"{type(exc).__name__}: {exc}") from exc
        if response.status_code in missing:
            return None
        if (err := _status_error(url, response)) is not None:
            raise err
        return response.content

    with _client_for(client, options) as http:
        body, _ = _retrying(url, "GET", options, lambda: once(http))
    return body
