"""What changed upstream since the last landing, found cheaply: no file is downloaded or read.

- mirror / sample: a file's size or mtime differs from what the landing manifest recorded, or a file is
  new (not landed yet — e.g. a new utilization metric or piece in the listing);
- remote: a ``HEAD`` shows another ETag or size (HuggingFace: another ``X-Repo-Commit`` revision too).
The sensor turns each change into a run of the family's landing and raw assets; the load then finds out
which partitions' content really changed. Each mode's test is its ``TraceSource.change``.
"""

from __future__ import annotations

from pipelines.families.registry import family_keys, files_for, needs_listing
from pipelines.settings import Settings
from pipelines.sources.http_download import HttpOptions
from pipelines.sources.landing import list_utilization
from pipelines.sources.manifest import read_landed
from pipelines.sources.trace_source import TraceSource, UpstreamChange

__all__ = ["UpstreamChange", "detect_changes"]

HEAD_TIMEOUT_S = 30


def detect_changes(
    settings: Settings, families: list[str] | None = None, *, source: TraceSource
) -> list[UpstreamChange]:
    """Every upstream file of ``families`` (default: all) that differs in ``source`` (the one the settings
    name: :func:`pipelines.sample.source.trace_source`) from what was landed."""
    keys = families or family_keys()
    files = files_for(keys, list_utilization(settings, source=source) if needs_listing(keys) else [])
    client = source.client(HttpOptions(timeout=HEAD_TIMEOUT_S))
    try:
        found = (source.change(f, read_landed(settings, f.mirror_path), client) for f in files)
        return [change for change in found if change is not None]
    finally:
        if client is not None:
            client.close()
