"""Writing mirror files atomically (temp name, then rename) while hashing and counting lines."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from pipelines.sources.mirror_manifest import MirrorEntry, Origin

TEMP_SUFFIX = ".sample-tmp"


@dataclass(frozen=True)
class WrittenFile:
    mirror_path: str
    bytes: int
    sha256: str
    lines: int  # header included

    def entry(self, origin: Origin, real_lines: Sequence[tuple[int, int]] = (), **extra: Any) -> MirrorEntry:
        return MirrorEntry(self.bytes, self.sha256, origin, tuple(real_lines), extra)


class MirrorFile:
    """One file of the mirror, written under a temp name and renamed into place by :meth:`close`.

    Use as a context manager; on an exception the temp file is removed and nothing is renamed.
    """

    def __init__(self, root: Path, mirror_path: str, header: Sequence[str] | None = None) -> None:
        self.mirror_path = mirror_path
        self.path = root / mirror_path
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = self.path.with_name(self.path.name + TEMP_SUFFIX)
        self._handle = self._tmp.open("wb")
        self._hash = hashlib.sha256()
        self._bytes = 0
        self._lines = 0
        self.result: WrittenFile | None = None
        if header is not None:
            self.write((",".join(header) + "\n").encode("utf-8"))

    def write(self, data: bytes) -> None:
        self._handle.write(data)
        self._hash.update(data)
        self._bytes += len(data)
        self._lines += data.count(b"\n")

    @property
    def lines(self) -> int:
        return self._lines

    def close(self) -> WrittenFile:
        self._handle.close()
        self._tmp.replace(self.path)
        self.result = WrittenFile(self.mirror_path, self._bytes, self._hash.hexdigest(), self._lines)
        return self.result

    @property
    def written(self) -> WrittenFile:
        """What was written; only after the file was closed."""
        if self.result is None:
            raise RuntimeError(f"{self.mirror_path} is not closed yet")
        return self.result

    def abort(self) -> None:
        self._handle.close()
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> MirrorFile:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def write_bytes(root: Path, mirror_path: str, data: bytes) -> WrittenFile:
    with MirrorFile(root, mirror_path) as f:
        f.write(data)
    return f.written
