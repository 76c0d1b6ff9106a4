"""A mirror's ``MANIFEST.json`` (docs/pages/architecture.md, Mirror layout): which files it holds, their bytes and hashes, and which lines
are real upstream data versus synthetic.

``{"files": {"<mirror path>": {"bytes": n, "sha256": "…", "origin": "synthetic"|"real"|"mixed",
"real_lines": [[first, last], …]}}}`` — line numbers count the header as line 1, so the first data row is
line 2. Extra keys (``"note"``, ``"unverified_layout"``) are allowed and carried along.
A file the manifest does not list (a user's own download) is ``real``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pipelines.atomic_write import write_json

Origin = Literal["real", "synthetic", "mixed"]
MANIFEST_NAME = "MANIFEST.json"
ORIGINS: tuple[Origin, ...] = ("real", "synthetic", "mixed")


class MirrorManifestError(ValueError):
    pass


@dataclass(frozen=True)
class MirrorEntry:
    bytes: int
    sha256: str
    origin: Origin
    real_lines: tuple[tuple[int, int], ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def origin_of_line(self, line: int) -> Literal["real", "synthetic"]:
        if self.origin != "mixed":
            return "real" if self.origin == "real" else "synthetic"
        return "real" if any(a <= line <= b for a, b in self.real_lines) else "synthetic"

    def to_json(self) -> dict[str, Any]:
        return {
            "bytes": self.bytes,
            "sha256": self.sha256,
            "origin": self.origin,
            "real_lines": [list(r) for r in self.real_lines],
            **dict(self.extra),
        }


REAL_UNLISTED = MirrorEntry(bytes=-1, sha256="", origin="real")


@dataclass(frozen=True)
class MirrorManifest:
    files: Mapping[str, MirrorEntry]
    extra: Mapping[str, Any] = field(default_factory=dict)

    def entry(self, mirror_path: str) -> MirrorEntry | None:
        return self.files.get(mirror_path)

    def to_json(self) -> dict[str, Any]:
        return {**dict(self.extra), "files": {p: e.to_json() for p, e in sorted(self.files.items())}}


def parse(doc: Mapping[str, Any], where: str) -> MirrorManifest:
    files = doc.get("files")
    if not isinstance(files, Mapping):
        raise MirrorManifestError(f"{where}: no 'files' object")
    entries: dict[str, MirrorEntry] = {}
    for path, raw in files.items():
        try:
            origin = raw["origin"]
            if origin not in ORIGINS:
                raise MirrorManifestError(f"{where}: {path}: origin {origin!r} is not one of {ORIGINS}")
            known = {"bytes", "sha256", "origin", "real_lines"}
            entries[path] = MirrorEntry(
                bytes=int(raw["bytes"]),
                sha256=str(raw["sha256"]),
                origin=origin,
                real_lines=tuple((int(a), int(b)) for a, b in raw.get("real_lines", [])),
                extra={k: v for k, v in raw.items() if k not in known},
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise MirrorManifestError(f"{where}: entry {path!r} is malformed ({exc})") from exc
    return MirrorManifest(entries, {k: v for k, v in doc.items() if k != "files"})


def read(mirror_root: Path) -> MirrorManifest | None:
    """The manifest at a mirror's root, or None when the mirror has none."""
    path = mirror_root / MANIFEST_NAME
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise MirrorManifestError(f"{path}: not valid JSON ({exc})") from exc
    return parse(doc, str(path))


def write(mirror_root: Path, manifest: MirrorManifest) -> Path:
    path = mirror_root / MANIFEST_NAME
    write_json(path, manifest.to_json(), indent=2)
    return path
