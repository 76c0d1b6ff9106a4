"""Where upstream files come from: one :class:`TraceSource` per ``TRACE_SOURCE`` mode.

- :class:`MirrorSource` (``mirror``): verify ``TRACE_MIRROR_DIR/<mirror path>`` in place and land it as a link
  to it (no copy: the mirror already is a local file); a file whose size and mtime match what the landing
  manifest recorded (and whose link is intact) is not verified again.
- ``SampleSource`` (``sample``): the generated mirror, created on first use, then as ``mirror``; it lives with
  the generator, in :mod:`pipelines.sample.source`, as does :func:`~pipelines.sample.source.trace_source`
  (the source the settings name).
- :class:`RemoteSource` (``remote``): GitHub raw, GitHub releases and HuggingFace
  (``UpstreamFile.url``), downloaded with :mod:`pipelines.sources.http_download` — resumable, retried, and
  conditional on the recorded ETag.

Each says where a file is, lists the utilization folder, reads the mirror's ``MANIFEST.json``, lands one
file, and tells cheaply (no download) whether a landed file changed upstream. The landing run
(:mod:`pipelines.sources.landing`) and the sensor (:mod:`pipelines.sources.changes`) only call these.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from pipelines.families.upstream import ACME_HF_REPO, HF_MIRROR_PREFIX, UTILIZATION_DIR, UpstreamFile
from pipelines.settings import Settings
from pipelines.sources import huggingface
from pipelines.sources import mirror_manifest as mm
from pipelines.sources.http_download import DownloadError, HttpOptions, RemoteState, download, fetch_bytes
from pipelines.sources.manifest import LandedFile, is_intact, landed_record
from pipelines.sources.verify import InvalidContent, Verifier, link

Progress = Callable[[str], None]
PARTIAL_DIR = ".partial"
MANIFEST_MISSING_STATUSES = frozenset({400, 404, 410})


class FetchError(RuntimeError):
    """One file could not be landed; the message names the mirror path, the URL or local path, the reason."""

    def __init__(self, mirror_path: str, location: str, reason: str) -> None:
        super().__init__(f"cannot land {mirror_path} from {location}: {reason}")
        self.mirror_path = mirror_path
        self.location = location
        self.reason = reason


@dataclass(frozen=True)
class UpstreamChange:
    family: str
    mirror_path: str
    reason: str
    version: str  # what was observed (size:mtime, ETag, revision): part of the sensor's run key


@dataclass
class Landing:
    """One landing run's shared state: the mirror manifest, HTTP options and client, progress."""

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

    def say(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)


class TraceSource(ABC):
    """Where the upstream files of a warehouse come from."""

    # Files landed at once. A download's progress is told as it comes, so downloads go one at a time.
    landing_workers = 1

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def prepare(self, progress: Progress | None = None) -> None:
        """Make the source readable (the sample generates its mirror); nothing for the others."""
        return None

    def client(self, options: HttpOptions) -> httpx.Client | None:
        """The HTTP client a landing run shares, for sources that download."""
        return None

    @abstractmethod
    def location(self, file: UpstreamFile) -> str:
        """Where ``file`` is read from (a URL or a path), as errors and the manifest name it."""

    @abstractmethod
    def manifest_location(self) -> str: ...

    @abstractmethod
    def read_manifest(self, client: httpx.Client | None, options: HttpOptions) -> mm.MirrorManifest | None:
        """The mirror's ``MANIFEST.json`` (None where there is none)."""

    @abstractmethod
    def list_utilization(self, progress: Progress | None = None) -> list[str]:
        """Repo paths (``data/utilization/...``) of every file under the utilization folder, sorted."""

    @abstractmethod
    def land(self, run: Landing, file: UpstreamFile, previous: LandedFile | None) -> LandedFile:
        """Land ``file`` at ``landing/<mirror path>`` (or find it unchanged); raises :class:`FetchError`."""

    @abstractmethod
    def change(
        self, file: UpstreamFile, landed: LandedFile | None, client: httpx.Client | None
    ) -> UpstreamChange | None:
        """How ``file`` differs upstream from what was landed (None: it does not), found without a download."""


class MirrorSource(TraceSource):
    # A mirror file lands by a sha256 of its bytes (one core each); two files at once take both cores.
    landing_workers = 2

    @property
    def root(self) -> Path:
        assert self.settings.mirror_dir is not None  # load_settings guarantees it for mirror/sample
        return self.settings.mirror_dir

    def location(self, file: UpstreamFile) -> str:
        return str(self.root / file.mirror_path)

    def manifest_location(self) -> str:
        return str(self.root / mm.MANIFEST_NAME)

    def read_manifest(self, client: httpx.Client | None, options: HttpOptions) -> mm.MirrorManifest | None:
        return mm.read(self.root)

    def list_utilization(self, progress: Progress | None = None) -> list[str]:
        self.prepare(progress)
        root = self.root / HF_MIRROR_PREFIX
        folder = root / UTILIZATION_DIR
        if not folder.is_dir():
            return []
        paths = (p.relative_to(root).as_posix() for p in folder.rglob("*") if p.is_file())
        return sorted(p for p in paths if not any(part.startswith(".") for part in p.split("/")))

    def land(self, run: Landing, file: UpstreamFile, previous: LandedFile | None) -> LandedFile:
        src = self.root / file.mirror_path
        dest = self.settings.landing_dir / file.mirror_path
        entry = run.entry(file)
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
            and is_intact(previous, dest, entry)
        ):
            run.say(f"unchanged {file.mirror_path}")
            return landed_record(
                file, dest, str(src), entry, size=previous.bytes, sha256=previous.sha256,
                source_mtime_ns=st.st_mtime_ns, fetched_at=previous.fetched_at, changed=False,
                dropped=previous.dropped and not dest.exists(),
            )  # fmt: skip
        verifier = Verifier(file, file.url(self.settings), entry, published=False)
        try:
            verifier(src)
        except InvalidContent as exc:
            raise FetchError(file.mirror_path, str(src), str(exc)) from None
        if src.stat().st_mtime_ns != st.st_mtime_ns or verifier.size != st.st_size:
            raise FetchError(file.mirror_path, str(src), "the file changed while it was verified: run again")
        tmp = run.partial_dir / (file.mirror_path + ".link")
        tmp.parent.mkdir(parents=True, exist_ok=True)
        link(src, tmp, dest)
        run.say(f"linked {file.mirror_path} ({verifier.size} bytes)")
        return landed_record(
            file, dest, str(src), entry, size=verifier.size, sha256=verifier.sha256,
            source_mtime_ns=st.st_mtime_ns,
        )  # fmt: skip

    def change(
        self, file: UpstreamFile, landed: LandedFile | None, client: httpx.Client | None
    ) -> UpstreamChange | None:
        path = self.root / file.mirror_path
        if not path.exists():
            return None  # a missing file is the landing asset's error to report, not a change
        st = path.stat()
        version = f"{st.st_size}:{st.st_mtime_ns}"
        if landed is None:
            return UpstreamChange(file.family, file.mirror_path, "new file", version)
        if landed.bytes != st.st_size or landed.source_mtime_ns != st.st_mtime_ns:
            return UpstreamChange(file.family, file.mirror_path, "size or mtime changed", version)
        return None


class RemoteSource(TraceSource):
    def client(self, options: HttpOptions) -> httpx.Client | None:
        from pipelines.sources.http_download import make_client

        return make_client(options)

    def location(self, file: UpstreamFile) -> str:
        return file.url(self.settings)

    def manifest_location(self) -> str:
        return f"{self.settings.github_raw_url}/{mm.MANIFEST_NAME}"

    def read_manifest(self, client: httpx.Client | None, options: HttpOptions) -> mm.MirrorManifest | None:
        """``<TRACE_GITHUB_RAW_URL>/MANIFEST.json``, fetched once per run.

        Real GitHub has no file at that path (it answers 404 — 400/410 are taken the same way), so against
        the real upstream there is no manifest and every file is ``real``. A test or in-house mirror served
        over HTTP puts its ``MANIFEST.json`` there, and then its entries apply exactly as in ``mirror`` mode.
        """
        url = self.manifest_location()
        body = fetch_bytes(url, client=client, options=options, missing=MANIFEST_MISSING_STATUSES)
        if body is None:
            return None
        try:
            doc = json.loads(body)
        except json.JSONDecodeError as exc:
            raise mm.MirrorManifestError(f"{url}: not valid JSON ({exc})") from exc
        return mm.parse(doc, url)

    def list_utilization(self, progress: Progress | None = None) -> list[str]:
        try:
            return huggingface.list_repo_paths(self.settings)
        except Exception as exc:  # huggingface_hub raises many types; all mean "listing failed"
            endpoint = self.settings.hf_url
            where = f"{endpoint}/api/datasets/{ACME_HF_REPO}/tree/main/{UTILIZATION_DIR}"
            reason = f"the HuggingFace listing failed: {type(exc).__name__}: {exc}"
            raise FetchError(HF_MIRROR_PREFIX + UTILIZATION_DIR + "/", where, reason) from None

    def _request(self, file: UpstreamFile) -> tuple[str, dict[str, str]]:
        if file.host == "huggingface":
            return huggingface.resolve_url(self.settings, file.repo_path), huggingface.request_headers(
                self.settings
            )
        return file.url(self.settings), {}

    def land(self, run: Landing, file: UpstreamFile, previous: LandedFile | None) -> LandedFile:
        url, headers = self._request(file)
        dest = self.settings.landing_dir / file.mirror_path
        entry = run.entry(file)
        known = None
        if (
            previous is not None
            and previous.url == url
            and previous.etag
            and is_intact(previous, dest, entry)
        ):
            known = RemoteState(previous.etag, previous.bytes, previous.revision)
        verifier = Verifier(file, file.url(self.settings), entry, published=True)
        try:
            result = download(
                url,
                dest,
                part=run.partial_dir / (file.mirror_path + ".part"),
                client=run.client,
                headers=headers,
                previous=known,
                options=run.options,
                progress=_reporter(run, file),
                verify=verifier.publishing(),
            )
        except InvalidContent as exc:
            raise FetchError(file.mirror_path, url, str(exc)) from None
        except DownloadError as exc:
            raise FetchError(file.mirror_path, url, exc.reason) from None
        state = result.state
        if not result.changed and previous is not None:
            run.say(f"unchanged {file.mirror_path}")
            return landed_record(
                file, dest, url, entry, size=previous.bytes, sha256=previous.sha256,
                etag=state.etag or previous.etag, revision=state.revision or previous.revision,
                fetched_at=previous.fetched_at, changed=False, dropped=previous.dropped and not dest.exists(),
            )  # fmt: skip
        run.say(f"downloaded {file.mirror_path} ({verifier.size} bytes)")
        return landed_record(
            file, dest, url, entry, size=verifier.size, sha256=verifier.sha256, etag=state.etag,
            revision=state.revision,
        )  # fmt: skip

    def change(
        self, file: UpstreamFile, landed: LandedFile | None, client: httpx.Client | None
    ) -> UpstreamChange | None:
        assert client is not None
        headers = huggingface.request_headers(self.settings) if file.host == "huggingface" else {}
        response = client.head(file.url(self.settings), headers=headers, follow_redirects=True)
        if response.status_code >= 400:
            return None  # unreachable or gone: the landing asset reports it with its retries
        state = RemoteState.from_response(response)
        version = f"{state.etag}:{state.bytes}:{state.revision}"
        if landed is None:
            return UpstreamChange(file.family, file.mirror_path, "new file", version)
        if state.etag != landed.etag or (state.bytes is not None and state.bytes != landed.bytes):
            return UpstreamChange(file.family, file.mirror_path, "ETag or size changed", version)
        return None


def _reporter(run: Landing, file: UpstreamFile) -> Callable[[int, int | None], None]:
    def report(done: int, total: int | None) -> None:
        if total is not None and done >= total:
            return  # the "downloaded" line follows
        of = f" of {total}" if total is not None else ""
        pct = f" ({100 * done // total}%)" if total else ""
        run.say(f"downloading {file.mirror_path}: {done}{of} bytes{pct}")

    return report
