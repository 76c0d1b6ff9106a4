"""The warehouse's landing manifest: one JSON document per landed file.

``$WAREHOUSE_DIR/manifest/<mirror path>.json`` says where a file in ``landing/`` came from (URL or mirror
path), its bytes and sha256, whether its lines are real or synthetic, and the remote version it was fetched
at (ETag, HuggingFace revision) or the mirror file's mtime — what the next run compares against to do no
work for an unchanged file. Documents are replaced atomically (temp file + rename).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pipelines.atomic_write import write_json
from pipelines.families.upstream import UpstreamFile
from pipelines.settings import Settings
from pipelines.sources import mirror_manifest as mm

Origin = Literal["real", "synthetic", "mixed"]
FORMAT_VERSION = 1
SUFFIX = ".json"


class LandingManifestError(ValueError):
    """A landing-manifest document that cannot be read; the message names the file."""


@dataclass(frozen=True)
class LandedFile:
    mirror_path: str  # also the path under landing/
    family: str  # Family.key
    path: Path  # the landed file
    url: str  # where it came from: URL (remote) or the mirror file's full path (mirror/sample)
    bytes: int
    sha256: str
    origin: Origin
    real_lines: list[list[int]] = field(default_factory=list)
    etag: str | None = None
    revision: str | None = None  # HuggingFace X-Repo-Commit
    source_mtime_ns: int | None = None  # mirror file's mtime (mirror/sample mode)
    fetched_at: str = ""  # ISO-8601 UTC time the bytes were landed
    changed: bool = True  # whether the run that wrote this document landed new bytes
    unverified_layout: bool = False  # the mirror says this file's layout is an assumption
    note: str | None = None
    # The landed copy was deleted once its Parquet was published (TRACE_DROP_LANDED); bytes, sha256, ETag
    # and mtime above still say what was landed, so an unchanged upstream file is not fetched again.
    dropped: bool = False

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["path"] = str(self.path)
        return {"format": FORMAT_VERSION, **doc}

    @classmethod
    def from_json(cls, doc: dict[str, Any], where: str) -> LandedFile:
        try:
            return cls(
                mirror_path=str(doc["mirror_path"]),
                family=str(doc["family"]),
                path=Path(doc["path"]),
                url=str(doc["url"]),
                bytes=int(doc["bytes"]),
                sha256=str(doc["sha256"]),
                origin=doc["origin"],
                real_lines=[[int(a), int(b)] for a, b in doc.get("real_lines", [])],
                etag=doc.get("etag"),
                revision=doc.get("revision"),
                source_mtime_ns=doc.get("source_mtime_ns"),
                fetched_at=str(doc.get("fetched_at", "")),
                changed=bool(doc.get("changed", True)),
                unverified_layout=bool(doc.get("unverified_layout", False)),
                note=doc.get("note"),
                dropped=bool(doc.get("dropped", False)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise LandingManifestError(f"{where}: malformed landing manifest document ({exc!r})") from exc


def document_path(settings: Settings, mirror_path: str) -> Path:
    return settings.manifest_dir / (mirror_path + SUFFIX)


def _load(settings: Settings, path: Path) -> LandedFile:
    """Read one document; ``path`` is re-derived from the settings, so a moved warehouse still works."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise LandingManifestError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(doc, dict):
        raise LandingManifestError(f"{path}: not a JSON object")
    landed = LandedFile.from_json(doc, str(path))
    return replace(landed, path=settings.landing_dir / landed.mirror_path)


def read_landed(settings: Settings, mirror_path: str) -> LandedFile | None:
    """The document of one landed file, or None when it was never landed."""
    path = document_path(settings, mirror_path)
    if not path.is_file():
        return None
    return _load(settings, path)


def write_landed(settings: Settings, landed: LandedFile) -> Path:
    """Write (replace) the document of one landed file atomically."""
    path = document_path(settings, landed.mirror_path)
    write_json(path, landed.to_json(), indent=2)
    return path


def all_landed(settings: Settings) -> list[LandedFile]:
    """Every landed file's document, sorted by mirror path."""
    root = settings.manifest_dir
    if not root.is_dir():
        return []
    docs = [
        _load(settings, p) for p in root.rglob("*" + SUFFIX) if p.is_file() and not p.name.startswith(".")
    ]
    return sorted(docs, key=lambda d: d.mirror_path)


def landed_record(
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
    dropped: bool = False,
) -> LandedFile:
    """The manifest document of a file landed from ``location`` (origin and real lines from ``entry``)."""
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
        fetched_at=fetched_at or datetime.now(UTC).isoformat(timespec="seconds"),
        changed=changed,
        unverified_layout=bool(extra.get("unverified_layout", False)),
        note=str(note) if note is not None else None,
        dropped=dropped,
    )


def is_intact(landed: LandedFile, dest: Path, entry: mm.MirrorEntry | None) -> bool:
    """The landed copy is still there with its recorded size (or was dropped on purpose after its load),
    and the mirror manifest still agrees."""
    if landed.dropped and not dest.exists():
        return entry is None or entry.sha256 == landed.sha256
    try:
        size = dest.stat().st_size
    except FileNotFoundError:
        return False
    return size == landed.bytes and (entry is None or entry.sha256 == landed.sha256)
