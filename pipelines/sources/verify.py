"""What a file must pass before it appears in ``landing/``, and how it gets there.

A Git LFS pointer is refused; a file the mirror's ``MANIFEST.json`` lists must have its bytes and sha256;
in ``remote`` mode a file it does not list must have the catalog's published size/sha256 where one is
known. A verified temp file is made read-only (landing is immutable) and renamed onto its landing path.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pipelines.families.upstream import UpstreamFile
from pipelines.sources import mirror_manifest as mm

LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/"
CHUNK = 1 << 20


class InvalidContent(Exception):
    """Content that must not land (LFS pointer, checksum mismatch); the message is the reason."""


def sha256_file(path: Path) -> tuple[int, str]:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


@dataclass
class Verifier:
    """Checks a complete temp file; keeps its size and sha256 for the manifest."""

    file: UpstreamFile
    url: str  # where the real file is (named in the LFS-pointer error)
    entry: mm.MirrorEntry | None
    published: bool  # check the catalog's published size/sha256 when no mirror entry lists the file
    size: int = -1
    sha256: str = ""

    def __call__(self, path: Path) -> None:
        with open(path, "rb") as fh:
            head = fh.read(len(LFS_POINTER_PREFIX))
        self.size, self.sha256 = sha256_file(path)
        if head == LFS_POINTER_PREFIX:
            raise InvalidContent(
                f"this is a Git LFS pointer file ({self.size} bytes), not the CSV; download the "
                f"release asset instead ({self.url})"
            )
        if self.entry is not None:
            self._against_entry(self.entry)
        elif self.published:
            self._against_published()

    def _against_entry(self, entry: mm.MirrorEntry) -> None:
        if entry.bytes != self.size or entry.sha256 != self.sha256:
            raise InvalidContent(
                f"content does not match the mirror's MANIFEST.json: got {self.size} bytes with sha256 "
                f"{self.sha256}, MANIFEST.json lists {entry.bytes} bytes with sha256 {entry.sha256}"
            )

    def _against_published(self) -> None:
        want_bytes, want_sha = self.file.published_bytes, self.file.published_sha256
        if want_bytes is not None and want_bytes != self.size:
            raise InvalidContent(
                f"size does not match the published size: got {self.size} bytes (sha256 {self.sha256}), "
                f"published {want_bytes} bytes (sha256 {want_sha})"
            )
        if want_sha is not None and want_sha != self.sha256:
            raise InvalidContent(
                f"checksum does not match the published sha256: got {self.sha256}, published {want_sha}"
            )

    def publishing(self) -> Callable[[Path], None]:
        """Verify, then make the file read-only before the downloader renames it into landing/."""

        def check(path: Path) -> None:
            self(path)
            path.chmod(0o444)

        return check


def link(src: Path, tmp: Path, dest: Path) -> None:
    """Atomically make ``dest`` a symbolic link to ``src`` (absolute), through ``tmp``: a mirror file is landed
    in place, not copied; its size and mtime at landing are recorded, and the load refuses it if they moved."""
    tmp.unlink(missing_ok=True)
    os.symlink(src.resolve(), tmp)
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, dest)
