"""What changed upstream since the last landing, found cheaply: no file is downloaded or read.

- mirror / sample: a file's size or mtime differs from what the landing manifest recorded, or a file is
  new (not landed yet — e.g. a new utilization metric or piece in the listing);
- remote: a ``HEAD`` shows another ETag or size (HuggingFace: another ``X-Repo-Commit`` revision too).
The sensor turns each change into a run of the family's landing and raw assets; the load then finds out
which partitions' content really changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from pipelines.settings import Settings
from pipelines.sources.catalog import FAMILIES, UpstreamFile, files_for
from pipelines.sources.http_download import RemoteState
from pipelines.sources.manifest import LandedFile, read_landed


@dataclass(frozen=True)
class UpstreamChange:
    family: str
    mirror_path: str
    reason: str
    version: str  # what was observed (size:mtime, ETag, revision): part of the sensor's run key


def _listing(settings: Settings) -> list[str]:
    from pipelines.sources.landing import list_utilization

    return list_utilization(settings)


def _mirror_change(
    settings: Settings, file: UpstreamFile, landed: LandedFile | None
) -> UpstreamChange | None:
    assert settings.mirror_dir is not None
    path = settings.mirror_dir / file.mirror_path
    if not path.exists():
        return None  # a missing file is the landing asset's error to report, not a change
    st = path.stat()
    version = f"{st.st_size}:{st.st_mtime_ns}"
    if landed is None:
        return UpstreamChange(file.family, file.mirror_path, "new file", version)
    if landed.bytes != st.st_size or landed.source_mtime_ns != st.st_mtime_ns:
        return UpstreamChange(file.family, file.mirror_path, "size or mtime changed", version)
    return None


def _remote_change(
    client: httpx.Client, settings: Settings, file: UpstreamFile, landed: LandedFile | None
) -> UpstreamChange | None:
    from pipelines.sources.huggingface import request_headers

    headers = request_headers(settings) if file.host == "huggingface" else {}
    response = client.head(file.url(settings), headers=headers, follow_redirects=True)
    if response.status_code >= 400:
        return None  # unreachable or gone: the landing asset reports it with its retries
    state = RemoteState.from_response(response)
    version = f"{state.etag}:{state.bytes}:{state.revision}"
    if landed is None:
        return UpstreamChange(file.family, file.mirror_path, "new file", version)
    if state.etag != landed.etag or (state.bytes is not None and state.bytes != landed.bytes):
        return UpstreamChange(file.family, file.mirror_path, "ETag or size changed", version)
    return None


def detect_changes(settings: Settings, families: list[str] | None = None) -> list[UpstreamChange]:
    """Every upstream file of ``families`` (default: all) that differs from what was landed."""
    keys = families or [f.key for f in FAMILIES]
    needs_listing = any(k in ("acme__gpu_metrics", "acme__node_metrics") for k in keys)
    files = files_for(keys, _listing(settings) if needs_listing else [])
    changes: list[UpstreamChange] = []
    if settings.source == "remote":
        with httpx.Client(timeout=30) as client:
            for f in files:
                change = _remote_change(client, settings, f, read_landed(settings, f.mirror_path))
                changes += [change] if change else []
    else:
        for f in files:
            change = _mirror_change(settings, f, read_landed(settings, f.mirror_path))
            changes += [change] if change else []
    return changes
