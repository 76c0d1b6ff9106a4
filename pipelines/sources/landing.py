"""Landing: bring upstream files into ``$WAREHOUSE_DIR/landing/<mirror path>`` — one code path, three modes.

The modes are :class:`~pipelines.sources.trace_source.TraceSource` subclasses (sample, mirror, remote);
this module runs a landing with the one it is given (:func:`pipelines.sample.source.trace_source` gives the
one the settings name). An unchanged file is not copied or downloaded again (``changed=False``).

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

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from pipelines.families.upstream import UpstreamFile
from pipelines.settings import Settings
from pipelines.sources import mirror_manifest as mm
from pipelines.sources.http_download import DownloadError, HttpOptions
from pipelines.sources.manifest import LandedFile, read_landed, write_landed
from pipelines.sources.trace_source import FetchError, Landing, Progress, TraceSource

__all__ = ["FetchError", "LandingResult", "land_files", "list_utilization"]


@dataclass(frozen=True)
class LandingResult:
    landed: list[LandedFile] = field(default_factory=list)
    errors: list[FetchError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def _error(settings: Settings, mirror_path: str, location: str, reason: str) -> FetchError:
    """A FetchError with the HF token scrubbed from every part, whatever produced the reason."""
    token = settings.hf_token
    if token:
        mirror_path, location, reason = (s.replace(token, "***") for s in (mirror_path, location, reason))
    return FetchError(mirror_path, location, reason)


def list_utilization(
    settings: Settings, progress: Progress | None = None, *, source: TraceSource
) -> list[str]:
    """Repo paths (``data/utilization/...``) of every file under the utilization folder, sorted: the
    HuggingFace listing (remote) or a walk of the mirror's utilization folder (empty when it has none).
    Feed the result to ``registry.files_for``."""
    try:
        return source.list_utilization(progress)
    except FetchError as exc:
        raise _error(settings, exc.mirror_path, exc.location, exc.reason) from None


def land_files(
    settings: Settings,
    files: Sequence[UpstreamFile],
    progress: Progress | None = None,
    *,
    source: TraceSource,
    options: HttpOptions | None = None,
) -> LandingResult:
    """Land each of ``files`` at ``settings.landing_dir / mirror_path`` from ``source``; see the module
    docstring. ``options`` tunes the HTTP retries and timeouts of ``remote`` mode.
    """
    options = options or HttpOptions()
    result = LandingResult()
    try:
        source.prepare(progress)
    except Exception as exc:
        reason = f"could not generate the sample mirror: {type(exc).__name__}: {exc}"
        return _all_failed(settings, files, str(settings.mirror_dir), reason)
    client = source.client(options)
    try:
        try:
            manifest = source.read_manifest(client, options)
        except (DownloadError, mm.MirrorManifestError, OSError) as exc:
            reason = f"cannot read the mirror manifest: {exc}"
            return _all_failed(settings, files, source.manifest_location(), reason)
        run = Landing(settings, manifest, options, progress, client)
        _land_all(source, run, files, result)
    finally:
        if client is not None:
            client.close()
    return result


def _land_all(
    source: TraceSource, run: Landing, files: Sequence[UpstreamFile], result: LandingResult
) -> None:
    """Land ``files``, ``source.landing_workers`` at once; what each says and its result are told in the
    order of ``files``, from this thread."""
    if source.landing_workers < 2 or len(files) < 2:
        for file in files:
            _record(run, _land_one(source, run, file), result)
        return
    said: list[list[str]] = [[] for _ in files]
    with ThreadPoolExecutor(source.landing_workers, thread_name_prefix="land") as pool:
        landings = [
            pool.submit(_land_one, source, replace(run, progress=told.append), file)
            for file, told in zip(files, said, strict=True)
        ]
        for told, landing in zip(said, landings, strict=True):
            outcome = landing.result()
            for message in told:
                run.say(message)
            _record(run, outcome, result)


def _land_one(source: TraceSource, run: Landing, file: UpstreamFile) -> LandedFile | FetchError:
    """``file`` landed and its manifest document written, or the error that stopped it (of any kind: one
    file's failure must not stop the others)."""
    settings = run.settings
    try:
        landed = source.land(run, file, read_landed(settings, file.mirror_path))
        write_landed(settings, landed)
    except FetchError as exc:
        return _error(settings, exc.mirror_path, exc.location, exc.reason)
    except Exception as exc:
        return _error(settings, file.mirror_path, source.location(file), f"{type(exc).__name__}: {exc}")
    return landed


def _record(run: Landing, outcome: LandedFile | FetchError, result: LandingResult) -> None:
    if isinstance(outcome, FetchError):
        run.say(f"FAILED {outcome}")
        result.errors.append(outcome)
    else:
        result.landed.append(outcome)


def _all_failed(
    settings: Settings, files: Sequence[UpstreamFile], location: str, reason: str
) -> LandingResult:
    return LandingResult(errors=[_error(settings, f.mirror_path, location, reason) for f in files])
