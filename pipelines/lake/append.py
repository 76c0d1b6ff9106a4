"""Appended tails: a loaded file that only grew by whole lines has just the new lines parsed.

Upstream files grow at the end (a new BurstGPT day, new 15-s utilization samples). The load state records
each file's ``size``; when the new file is longer and its first ``size`` bytes hash to the ``sha256`` that
was loaded (ending with a newline), the loader parses just the bytes after ``size``, with line numbers
continuing the file's (``loader._parse_tail``): the fast path reads them in place, the exact path from a
temp file of the header and those bytes. The new rows of a partition the file already had become a part of
it of their own (``<stem>~<n>.parquet``, ``state.py``): what was loaded is neither read nor rewritten, and
its validation results stay valid. Partition content hashes (count, xor and sum of row hashes) add up
without reading the old rows. Any other change is parsed whole.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from pipelines.lake import cells
from pipelines.lake.line_breaks import LineBreaks
from pipelines.lake.relation import PARTITION_DIR_PREFIX
from pipelines.lake.state import PART_SEPARATOR, FileLoadState, PartitionState, PartState

_CHUNK = 1 << 20


def appended_at(old: FileLoadState, path: Path) -> tuple[int, int] | None:
    """When ``path`` is the file ``old`` recorded with whole lines appended: the byte offset of the first new
    line and the physical data lines before it (line endings CRLF, CR or LF; more than ``old.lines`` when a
    quoted field held line breaks). Else None (then the file is parsed whole)."""
    if old.size is None or path.stat().st_size <= old.size:
        return None
    digest, remaining, breaks = hashlib.sha256(), old.size, LineBreaks()
    with path.open("rb") as fh:
        while remaining:
            block = fh.read(min(remaining, _CHUNK))
            if not block:
                return None
            digest.update(block)
            breaks.add(block)
            remaining -= len(block)
    if breaks.last != b"\n" or digest.hexdigest() != old.sha256:
        return None
    return old.size, breaks.count - 1  # the header is not a data line


def write_tail(path: Path, at: int, target: Path) -> None:
    """``target`` = the header line of ``path`` and every byte from ``at`` on."""
    with path.open("rb") as fh, target.open("wb") as out:
        out.write(fh.readline())
        fh.seek(at)
        shutil.copyfileobj(fh, out, _CHUNK)


def merged_hash(a: str, b: str) -> str:
    """The content hash of a partition holding the rows of two hashed parts (``n:xor:sum`` each)."""
    (n1, x1, s1), (n2, x2, s2) = (map(int, h.split(":")) for h in (a, b))
    return f"{n1 + n2}:{x1 ^ x2}:{s1 + s2}"


def add_parts(old: FileLoadState, tail: list[PartitionState], staging: Path) -> list[PartitionState]:
    """The file's partitions after its tail (staged under ``staging``, one file per partition): the tail's
    rows of a partition the file already had are renamed in staging to its next part; a new partition is
    staged whole; the others are kept as they are (``state.publish`` leaves them untouched)."""
    merged = {p.key: p for p in old.partitions}
    for p in tail:
        kept = merged.get(p.key)
        if kept is None:
            merged[p.key] = p
            continue
        files = kept.files(old.stem)
        part = PartState(f"{old.stem}{PART_SEPARATOR}{len(files)}.parquet", p.rows, p.content_hash)
        (staged,) = (staging / f"{PARTITION_DIR_PREFIX}{p.key}").glob("*.parquet")
        cells.rename_staged(staged, staged.with_name(part.file))
        merged[p.key] = PartitionState(
            p.key, kept.rows + p.rows, merged_hash(kept.content_hash, p.content_hash), [*files, part]
        )
    return [merged[k] for k in sorted(merged)]
