"""Editing a mirror as its publisher would: :func:`republish` records a changed file's new bytes and hash in
the mirror's ``MANIFEST.json`` (:func:`sha` is the hash)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pipelines.sources import mirror_manifest as mm


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def republish(mirror: Path, mirror_path: str) -> None:
    """What a mirror's publisher does after editing a file: record its new bytes and hash."""
    manifest = mm.read(mirror)
    assert manifest is not None
    entry = manifest.files[mirror_path]
    path = mirror / mirror_path
    files = dict(manifest.files)
    files[mirror_path] = mm.MirrorEntry(
        path.stat().st_size, sha(path), entry.origin, entry.real_lines, entry.extra
    )
    mm.write(mirror, mm.MirrorManifest(files, manifest.extra))
