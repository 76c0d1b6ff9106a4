"""Landing: bring upstream files into ``$WAREHOUSE_DIR/landing/<mirror path>`` — one code path, three modes.

- ``sample``: the generated mirror (created on first use by :func:`ensure_sample_mirror`), then as ``mirror``.
- ``mirror``: copy from ``TRACE_MIRROR_DIR/<mirror path>``; a file whose size and mtime match what the
  landing manifest recorded (and whose landed copy is intact) is not copied again (``changed=False``).
- ``remote``: download from GitHub raw, GitHub releases and HuggingFace (``UpstreamFile.url``) with
  :mod:`pipelines.sources.http_download` — resumable, retried, and conditional on the recorded ETag.

Every mode verifies before a file appears in ``landing/``: a Git LFS pointer is refused; a file the
mirror's ``MANIFEST.json`` lists must have its bytes and sha256; in ``remote`` mode a file it does not list
must have the catalog's published size/sha256 where one is known. The mirror manifest also says each
file's origin (``real``/``synthetic``/``mixed``) and real line ranges; an unlisted file is ``real``.

Files appear in ``landing/`` only by an atomic rename of a complete, verified temp file, and are made
read-only (landing is immutable). Temp files and the ``.part`` files of an interrupted download (kept so
the next run can resume) live in the hidden side folder ``landing/.partial/``, never beside a landed file.

Each file lands independently: one failure becomes a :class:`FetchError` in ``LandingResult.errors`` and
the others still land. A landing-manifest document (:mod:`pipelines.sources.manifest`) is written per file.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx

from pipelines.settings import Settings
from pipelines.sources import huggingface
from pipelines.sources import mirror_manifest as mm
from pipelines.sources.catalog import ACME_HF_REPO, HF_MIRROR_PREFIX, UTILIZATION_DIR, UpstreamFile
from pipelines.sources.http_download import (
    DownloadError,
    HttpOptions,
    RemoteState,
    download,
    fetch_bytes,
    make_client,
)
from pipelines.sources.manifest import LandedFile, read_landed, write_landed

Progress = Callable[[str], None]

LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/"
PARTIAL_DIR = ".partial"
MANIFEST_MISSING_STATUSES = frozenset({400, 404, 410})
_CHUNK = 1 << 20


class FetchError(RuntimeError):
    """One file could not be landed; the message names the mirror path, the URL or local path, the reason."""

    def __init__(self, mirror_path: str, location: str, reason: str) -> None:
        super().__init__(f"cannot land {mirror_path} from {location}: {reason}")
        self.mirror_path = mirror_path
        self.location = location
        self.reason = reason


@dataclass(frozen=True)
class LandingResult:
    landed: list[LandedFile] = field(default_factory=list)
    errors: list[FetchError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


class _Invalid(Exception):
    """Content that must not land (LFS pointer, checksum mismatch); the message is the reason."""


def _error(settings: Settings, mirror_path: str, location: str, reason: str) -> FetchError:
    """A FetchError with the HF token scrubbed from every part, whatever produced the reason."""
    token = settings.hf_token
    if token:
        mirror_path, location, reason = (s.replace(token, "***") for s in (mirror_path, location, reason))
    return FetchError(mirror_path, location, reason)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _say(progress: Progress | None, message: str) -> None:
    if progress is not None:
        progress(message)


# --- sample mirror and utilization listing -------------------------------------------------------------


def ensure_sample_mirror(settings: Settings, progress: Progress | None = None) -> None:
    """For ``TRACE_SOURCE=sample``: generate the sample mirror unless its ``MANIFEST.json`` exists."""
    if settings.source != "sample" or settings.mirror_dir is None:
        return
    if (settings.mirror_dir / mm.MANIFEST_NAME).is_file():
        return
    from pipelines.sources.sample import generate_sample

    _say(progress, f"generating the sample mirror in {settings.mirror_dir}")
    generate_sample(settings.mirror_dir, progress=progress)


def list_utilization(settings: Settings, progress: Progress | None = None) -> list[str]:
    """Repo paths (``data/utilization/...``) of every file under the utilization folder, sorted.

    ``remote``: the HuggingFace listing. ``mirror``/``sample``: a walk of
    ``<mirror>/huggingface/datasets/Qinghao/AcmeTrace/data/utilization/`` (empty when the mirror has none).
    Feed the result to ``catalog.discover_utilization`` / ``catalog.files_for``.
    """
    if settings.source == "remote":
        return _list_remote(settings)
    ensure_sample_mirror(settings, progress)
    assert settings.mirror_dir is not None  # guaranteed by load_settings for mirror/sample
    root = settings.mirror_dir / HF_MIRROR_PREFIX
    folder = root / UTILIZATION_DIR
    if not folder.is_dir():
        return []
    paths = (p.relative_to(root).as_posix() for p in folder.rglob("*") if p.is_file())
    return sorted(p for p in paths if not any(part.startswith(".") for part in p.split("/")))


def _list_remote(settings: Settings) -> list[str]:
    try:
        return huggingface.list_repo_paths(settings)
    except Exception as exc:  # huggingface_hub raises many types; all mean "listing failed"
        endpoint = settings.hf_endpoint or "https://huggingface.co"
        where = f"{endpoint}/api/datasets/{ACME_HF_REPO}/tree/main/{UTILIZATION_DIR}"
        reason = f"the HuggingFace listing failed: {type(exc).__name__}: {exc}"
        raise _error(settings, HF_MIRROR_PREFIX + UTILIZATION_DIR + "/", where, reason) from None


# --- verification ---------------------------------------------------------------------------------------


def _sha256(path: Path) -> tuple[int, str]:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


@dataclass
class _Verifier:
    """Checks a complete temp file; keeps its size and sha256 for the manifest."""

    settings: Settings
    file: UpstreamFile
    entry: mm.MirrorEntry | None
    remote: bool
    size: int = -1
    sha256: str = ""

    def __call__(self, path: Path) -> None:
        with open(path, "rb") as fh:
            head = fh.read(len(LFS_POINTER_PREFIX))
        self.size, self.sha256 = _sha256(path)
        if head == LFS_POINTER_PREFIX:
            raise _Invalid(
                f"this is a Git LFS pointer file ({self.size} bytes), not the CSV; download the "
                f"release asset instead ({self.file.url(self.settings)})"
            )
        if self.entry is not None:
            self._against_entry(self.entry)
        elif self.remote:
            self._against_published()

    def _against_entry(self, entry: mm.MirrorEntry) -> None:
        if entry.bytes != self.size or entry.sha256 != self.sha256:
            raise _Invalid(
                f"content does not match the mirror's MANIFEST.json: got {self.size} bytes with sha256 "
                f"{self.sha256}, MANIFEST.json lists {entry.bytes} bytes with sha256 {entry.sha256}"
            )

    def _against_published(self) -> None:
        want_bytes, want_sha = self.file.published_bytes, self.file.published_sha256
        if want_bytes is not None and want_bytes != self.size:
            raise _Invalid(
                f"size does not match the published size: got {self.size} bytes (sha256 {self.sha256}), "
                f"published {want_bytes} bytes (sha256 {want_sha})"
            )
        if want_sha is not None and want_sha != self.sha256:
            raise _Invalid(
                f"checksum does not match the published sha256: got {self.sha256}, published {want_sha}"
            )


# --- the landed record ----------------------------------------------------------------------------------


def _record(
    file: UpstreamFile,
    path: Path,
    location: str,
    entry: mm.MirrorEntry | None,
    *,
    size: int,
    sha256: str,
    etag: str | None = None,
    revision: str | None = None,
    source_mtime_ns: int | None = None,
    fetched_at: str | None = None,
    changed: bool = True,
) -> LandedFile:
    extra = dict(entry.extra) if entry is not None else {}
    note = extra.get("note")
    return LandedFile(
        mirror_path=file.mirror_path,
        family=file.family,
        path=path,
        url=location,
        bytes=size,
        sha256=sha256,
        origin=entry.origin if entry is not None else "real",
        real_lines=[list(r) for r in entry.real_lines] if entry is not None else [],
        etag=etag,
        revision=revision,
        source_mtime_ns=source_mtime_ns,
        fetched_at=fetched_at or _now(),
        changed=changed,
        unverified_layout=bool(extra.get("unverified_layout", False)),
        note=str(note) if note is not None else None,
    )


def _intact(landed: LandedFile, dest: Path, entry: mm.MirrorEntry | None) -> bool:
    """The landed copy is still there with its recorded size, and the mirror manifest still agrees."""
    try:
        size = dest.stat().st_size
    except FileNotFoundError:
        return False
    return size == landed.bytes and (entry is None or entry.sha256 == landed.sha256)


# --- one file, by mode ----------------------------------------------------------------------------------


@dataclass
class _Run:
    settings: Settings
    manifest: mm.MirrorManifest | None
    options: HttpOptions
    progress: Progress | None
    client: httpx.Client | None = None

    @property
    def partial_dir(self) -> Path:
        return self.settings.landing_dir / PARTIAL_DIR

    def entry(self, file: UpstreamFile) -> mm.MirrorEntry | None:
        return self.manifest.entry(file.mirror_path) if self.manifest is not None else None

    def land(self, file: UpstreamFile) -> LandedFile:
        previous = read_landed(self.settings, file.mirror_path)
        if self.settings.source == "remote":
            return self._land_remote(file, previous)
        return self._land_copy(file, previous)

    # mirror / sample -----------------------------------------------------------------------------------
    def _land_copy(self, file: UpstreamFile, previous: LandedFile | None) -> LandedFile:
        assert self.settings.mirror_dir is not None
        src = self.settings.mirror_dir / file.mirror_path
        dest = self.settings.landing_dir / file.mirror_path
        entry = self.entry(file)
        try:
            st = src.stat()
        except FileNotFoundError:
            raise FetchError(
                file.mirror_path, str(src), f"not in the mirror: expected a file at {src}"
            ) from None
        if (
            previous is not None
            and previous.url == str(src)
            and previous.source_mtime_ns == st.st_mtime_ns
            and previous.bytes == st.st_size
            and _intact(previous, dest, entry)
        ):
            _say(self.progress, f"unchanged {file.mirror_path}")
            return _record(
                file,
                dest,
                str(src),
                entry,
                size=previous.bytes,
                sha256=previous.sha256,
                source_mtime_ns=st.st_mtime_ns,
                fetched_at=previous.fetched_at,
                changed=False,
            )
        verifier = _Verifier(self.settings, file, entry, remote=False)
        tmp = self.partial_dir / (file.mirror_path + ".copy")
        tmp.parent.mkdir(parents=True, exist_ok=True)
        try:
            _copy(src, tmp)
            verifier(tmp)
            _publish(tmp, dest)
        except _Invalid as exc:
            raise FetchError(file.mirror_path, str(src), str(exc)) from None
        finally:
            tmp.unlink(missing_ok=True)
        _say(self.progress, f"copied {file.mirror_path} ({verifier.size} bytes)")
        return _record(
            file,
            dest,
            str(src),
            entry,
            size=verifier.size,
            sha256=verifier.sha256,
            source_mtime_ns=st.st_mtime_ns,
        )

    # remote --------------------------------------------------------------------------------------------
    def _land_remote(self, file: UpstreamFile, previous: LandedFile | None) -> LandedFile:
        if file.host == "huggingface":
            url = huggingface.resolve_url(self.settings, file.repo_path)
            headers = huggingface.request_headers(self.settings)
        else:
            url, headers = file.url(self.settings), {}
        dest = self.settings.landing_dir / file.mirror_path
        entry = self.entry(file)
        known = None
        if previous is not None and previous.url == url and previous.etag and _intact(previous, dest, entry):
            known = RemoteState(previous.etag, previous.bytes, previous.revision)
        verifier = _Verifier(self.settings, file, entry, remote=True)
        try:
            result = download(
                url,
                dest,
                part=self.partial_dir / (file.mirror_path + ".part"),
                client=self.client,
                headers=headers,
                previous=known,
                options=self.options,
                progress=self._reporter(file),
                verify=_publishing_verifier(verifier),
            )
        except _Invalid as exc:
            raise FetchError(file.mirror_path, url, str(exc)) from None
        except DownloadError as exc:
            raise FetchError(file.mirror_path, url, exc.reason) from None
        state = result.state
        if not result.changed and previous is not None:
            _say(self.progress, f"unchanged {file.mirror_path}")
            return _record(
                file,
                dest,
                url,
                entry,
                size=previous.bytes,
                sha256=previous.sha256,
                etag=state.etag or previous.etag,
                revision=state.revision or previous.revision,
                fetched_at=previous.fetched_at,
                changed=False,
            )
        _say(self.progress, f"downloaded {file.mirror_path} ({verifier.size} bytes)")
        return _record(
            file,
            dest,
            url,
            entry,
            size=verifier.size,
            sha256=verifier.sha256,
            etag=state.etag,
            revision=state.revision,
        )

    def _reporter(self, file: UpstreamFile) -> Callable[[int, int | None], None]:
        def report(done: int, total: int | None) -> None:
            if total is not None and done >= total:
                return  # the "downloaded" line follows
            of = f" of {total}" if total is not None else ""
            pct = f" ({100 * done // total}%)" if total else ""
            _say(self.progress, f"downloading {file.mirror_path}: {done}{of} bytes{pct}")

        return report


def _publishing_verifier(verifier: _Verifier) -> Callable[[Path], None]:
    """Verify, then make the file read-only before http_download renames it into landing/."""

    def check(path: Path) -> None:
        verifier(path)
        path.chmod(0o444)

    return check


def _copy(src: Path, dst: Path) -> None:
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        while chunk := fin.read(_CHUNK):
            fout.write(chunk)


def _publish(tmp: Path, dest: Path) -> None:
    """Atomically move a verified temp file onto its landing path, read-only (landing is immutable)."""
    tmp.chmod(0o444)
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, dest)


# --- the run --------------------------------------------------------------------------------------------


def _remote_manifest(
    settings: Settings, client: httpx.Client, options: HttpOptions
) -> mm.MirrorManifest | None:
    """``<TRACE_GITHUB_RAW_URL>/MANIFEST.json``, fetched once per run.

    Real GitHub has no file at that path (it answers 404 — 400/410 are taken the same way), so against the
    real upstream there is no manifest and every file is ``real``. A test or in-house mirror served over HTTP
    puts its ``MANIFEST.json`` there, and then its entries apply exactly as in ``mirror`` mode (hashes
    checked, origins and real line ranges taken from it).
    """
    url = f"{settings.github_raw_url}/{mm.MANIFEST_NAME}"
    body = fetch_bytes(url, client=client, options=options, missing=MANIFEST_MISSING_STATUSES)
    if body is None:
        return None
    try:
        doc = json.loads(body)
    except json.JSONDecodeError as exc:
        raise mm.MirrorManifestError(f"{url}: not valid JSON ({exc})") from exc
    return mm.parse(doc, url)


def _manifest_source(settings: Settings) -> str:
    if settings.source == "remote":
        return f"{settings.github_raw_url}/{mm.MANIFEST_NAME}"
    return str((settings.mirror_dir or Path()) / mm.MANIFEST_NAME)


def _location(settings: Settings, file: UpstreamFile) -> str:
    if settings.source == "remote":
        return file.url(settings)
    return str((settings.mirror_dir or Path()) / file.mirror_path)


def land_files(
    settings: Settings,
    files: Sequence[UpstreamFile],
    progress: Progress | None = None,
    *,
    options: HttpOptions | None = None,
) -> LandingResult:
    """Land each of ``files`` at ``settings.landing_dir / mirror_path``; see the module docstring.

    ``options`` tunes the HTTP retries and timeouts of ``remote`` mode.
    """
    options = options or HttpOptions()
    result = LandingResult()
    try:
        ensure_sample_mirror(settings, progress)
    except Exception as exc:
        reason = f"could not generate the sample mirror: {type(exc).__name__}: {exc}"
        return _all_failed(settings, files, str(settings.mirror_dir), reason)
    client = make_client(options) if settings.source == "remote" else None
    try:
        try:
            if client is not None:
                manifest = _remote_manifest(settings, client, options)
            else:
                manifest = mm.read(settings.mirror_dir) if settings.mirror_dir is not None else None
        except (DownloadError, mm.MirrorManifestError, OSError) as exc:
            reason = f"cannot read the mirror manifest: {exc}"
            return _all_failed(settings, files, _manifest_source(settings), reason)
        run = _Run(settings, manifest, options, progress, client)
        for file in files:
            _land_one(run, file, result)
    finally:
        if client is not None:
            client.close()
    return result


def _land_one(run: _Run, file: UpstreamFile, result: LandingResult) -> None:
    settings = run.settings
    try:
        landed = run.land(file)
        write_landed(settings, landed)
    except FetchError as exc:
        error = _error(settings, exc.mirror_path, exc.location, exc.reason)
    except Exception as exc:  # one file's failure of any kind must not stop the others
        error = _error(settings, file.mirror_path, _location(settings, file), f"{type(exc).__name__}: {exc}")
    else:
        result.landed.append(landed)
        return
    _say(run.progress, f"FAILED {error}")
    result.errors.append(error)


def _all_failed(
    settings: Settings, files: Sequence[UpstreamFile], location: str, reason: str
) -> LandingResult:
    return LandingResult(errors=[_error(settings, f.mirror_path, location, reason) for f in files])
