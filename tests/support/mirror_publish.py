"""Editing a mirror as its publisher would: :func:`republish` records a changed file's new bytes and hash in
the mirror's ``MANIFEST.json`` (:func:`sha` is the hash)."""

from __future__ import annotations

from pathlib import Path

from pipelines.sources import mirror_manifest as mm
from pipelines.sources.verify import sha256_file


def sha(path: Path) -> str:
    return sha256_file(path)[1]


def republish(mirror: Path, mirror_path: str) -> None:
    """What a mirror's publisher does after editing a file: record its new bytes and hash."""
    manifest = mm.read(mirror)
    assert manifest is not None
    entry = manifest.files[mirror_path]
    size, digest = sha256_file(mirror / mirror_path)
    files = dict(manifest.files)
    files[mirror_path] = mm.MirrorEntry(size, digest, entry.origin, entry.real_lines, entry.extra)
    mm.write(mirror, mm.MirrorManifest(files, manifest.extra))
