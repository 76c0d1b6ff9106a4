"""The raw lake on disk: partition files, per-file load state, and the swap that keeps unchanged partitions.

Layout: ``lake/raw/<family>/_partition=<key>/<file stem>.parquet`` — a Parquet file per source file and
partition, so the three BurstGPT files can share a day and each file is replaced on its own — followed by
``<file stem>~<n>.parquet`` for each appended tail that added rows to a partition the file already had
(``append.py``): an append writes only its new rows and never rewrites what was loaded.
``lake/rejects/<family>/<file stem>.parquet`` holds that file's rejected lines (written even when empty).
``lake/_state/<family>/<file stem>.json`` records what the last load of the file produced: the landed
sha256, line counts and a content hash per partition. A partition whose hash is unchanged keeps its file
untouched (byte-identical), so downstream refreshes can target only what changed.
"""

from __future__ import annotations

import glob
import json
import shutil
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pipelines.atomic_write import write_json
from pipelines.lake import cells
from pipelines.lake.relation import PARTITION_COLUMN, PARTITION_DIR_PREFIX, ident
from pipelines.settings import Settings

PART_SEPARATOR = "~"  # <stem>~<n>.parquet: the n-th appended part of a partition
# One swap at a time in this process: files of a family load side by side (family_load.py) and share partition
# folders, which a swap creates and, once empty, removes; another swap's move into a folder being removed fails.
_SWAP = threading.Lock()


@dataclass
class PartState:
    """One Parquet file of a source file's partition: its name, rows and content hash."""

    file: str
    rows: int
    content_hash: str


@dataclass
class PartitionState:
    key: str
    rows: int
    content_hash: str  # of every part together (``append.merged_hash``)
    parts: list[PartState] = field(default_factory=list)  # empty: one file, <stem>.parquet

    def files(self, stem: str) -> list[PartState]:
        """The partition's Parquet files, the first (``<stem>.parquet``) first."""
        return self.parts or [PartState(f"{stem}.parquet", self.rows, self.content_hash)]

    @classmethod
    def from_json(cls, doc: dict) -> PartitionState:
        parts = [PartState(**p) for p in doc.pop("parts", [])]
        return cls(**doc, parts=parts)


@dataclass
class FileLoadState:
    family: str
    mirror_path: str
    stem: str
    sha256: str
    data_origin: str
    lines: int  # data lines (the header excluded; a record whose quoted field spans lines counts once)
    loaded: int
    rejected: int
    loaded_at: str
    columns: list[list[str]]  # [[raw name, DuckDB type], ...] in output order
    partitions: list[PartitionState] = field(default_factory=list)
    values: int | None = None  # wide files: non-empty cells loaded
    empty_cells: int | None = None  # wide files: empty cells (idle GPUs, gaps), not stored
    # Bytes of the file loaded: a later file whose first `size` bytes hash to `sha256` only had lines appended
    # (loader._appended_at). None in states written before it was recorded.
    size: int | None = None

    def partition_hashes(self) -> dict[str, str]:
        return {p.key: p.content_hash for p in self.partitions}

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, doc: dict) -> FileLoadState:
        parts = [PartitionState.from_json(p) for p in doc.pop("partitions", [])]
        return cls(**doc, partitions=parts)


def content_hash_sql(columns: list[str]) -> str:
    """The aggregates of a partition's content hash over rows with these columns: ``n`` rows, the xor and the
    sum of their row hashes (the load time and the partition key left out). Parts of a partition hash
    separately and combine (``append.merged_hash``)."""
    hashed = ", ".join(ident(c) for c in columns if c not in ("_loaded_at", PARTITION_COLUMN))
    return f"count(*) as n, bit_xor(hash({hashed})) as x, sum(hash({hashed})::hugeint) as s"


def family_raw_dir(settings: Settings, family: str) -> Path:
    return settings.raw_dir / family


def partition_dir(settings: Settings, family: str, key: str) -> Path:
    return family_raw_dir(settings, family) / f"{PARTITION_DIR_PREFIX}{key}"


def rejects_path(settings: Settings, family: str, stem: str) -> Path:
    return settings.rejects_dir / family / f"{stem}.parquet"


def partition_files(settings: Settings, state: FileLoadState) -> list[tuple[PartitionState, PartState, Path]]:
    """Every lake file the recorded load of a source file produced, with its partition and part."""
    return [
        (p, part, partition_dir(settings, state.family, p.key) / part.file)
        for p in state.partitions
        for part in p.files(state.stem)
    ]


def state_path(settings: Settings, family: str, stem: str) -> Path:
    return settings.lake_dir / "_state" / family / f"{stem}.json"


def read_state(settings: Settings, family: str, stem: str) -> FileLoadState | None:
    path = state_path(settings, family, stem)
    if not path.exists():
        return None
    return FileLoadState.from_json(json.loads(path.read_text(encoding="utf-8")))


def family_states(settings: Settings, family: str) -> list[FileLoadState]:
    folder = settings.lake_dir / "_state" / family
    if not folder.is_dir():
        return []
    return [FileLoadState.from_json(json.loads(p.read_text("utf-8"))) for p in sorted(folder.glob("*.json"))]


def write_state(settings: Settings, state: FileLoadState) -> None:
    write_json(state_path(settings, state.family, state.stem), state.to_json(), indent=1)


def cell_files(
    settings: Settings, state: FileLoadState, partition: PartitionState, part: PartState
) -> list[Path]:
    """The cell counts of one lake file of a wide source file (``cells.py``; none for a table file)."""
    if state.values is None:
        return []
    return cells.companion_paths(settings, state.family, partition.key, part.file)


def outputs_present(settings: Settings, state: FileLoadState) -> bool:
    """Whether every file the recorded load produced is still on disk."""
    parts = all(
        path.exists() and all(c.exists() for c in cell_files(settings, state, p, part))
        for p, part, path in partition_files(settings, state)
    )
    return parts and rejects_path(settings, state.family, state.stem).exists()


_PARQUET_MAGIC = b"PAR1"


def damaged_outputs(settings: Settings, state: FileLoadState) -> list[str]:
    """The lake files of the recorded load (partitions, their cell counts and rejects) that are missing, or
    that are not whole Parquet files (changed behind the warehouse's back: truncated, cut off, overwritten):
    each starts and ends with ``PAR1``, the footer's length before the last one. A partition file whose
    cell counts are damaged is named too: the two are written together."""
    damaged: list[Path] = []
    for p, part, path in partition_files(settings, state):
        counts = [c for c in cell_files(settings, state, p, part) if not _whole_parquet(c)]
        if counts or not _whole_parquet(path):
            damaged += [path, *counts]
    rejects = rejects_path(settings, state.family, state.stem)
    damaged += [] if _whole_parquet(rejects) else [rejects]
    return [str(p) for p in damaged]


def _whole_parquet(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, 2)
            if size < 12:
                return False
            fh.seek(0)
            head = fh.read(4)
            fh.seek(size - 8)
            tail = fh.read(8)
    except FileNotFoundError:
        return False
    footer = int.from_bytes(tail[:4], "little")
    return head == tail[4:] == _PARQUET_MAGIC and footer <= size - 12


@dataclass
class SwapResult:
    written: list[str]
    unchanged: list[str]
    removed: list[str]


def publish(
    settings: Settings,
    family: str,
    stem: str,
    staging: Path,
    new: dict[str, str],
    old: dict[str, str],
) -> SwapResult:
    """Move staged partition files into the lake; keep files whose content hash did not change.

    ``staging`` holds ``_partition=<key>/*.parquet``, one file each (the loader merges split partitions):
    ``<stem>~<n>.parquet``, an appended part, joins the partition's files; any other name is the whole
    partition and replaces them. A wide file's cell counts (``cells.py``) go and stay with their data file.
    """
    with _SWAP:
        result = _swap(settings, family, stem, staging, new, old)
    shutil.rmtree(staging, ignore_errors=True)
    return result


def _swap(
    settings: Settings, family: str, stem: str, staging: Path, new: dict[str, str], old: dict[str, str]
) -> SwapResult:
    """:func:`publish`'s moves and removals."""
    result = SwapResult([], [], [])
    for key, digest in sorted(new.items()):
        target_dir = partition_dir(settings, family, key)
        target = target_dir / f"{stem}.parquet"
        staged_files = sorted((staging / f"{PARTITION_DIR_PREFIX}{key}").glob("*.parquet"))
        # the same content is kept as it is, unless a whole file is staged for a partition held in parts
        if old.get(key) == digest and target.exists() and not (staged_files and _parts(target_dir, stem)):
            result.unchanged.append(key)
            continue
        (staged,) = staged_files
        name = staged.name
        if not staged.stem.startswith(f"{stem}{PART_SEPARATOR}"):
            _remove_files(settings, family, key, stem, parts_only=True)
            name = target.name
        target_dir.mkdir(parents=True, exist_ok=True)
        cells.publish_companions(settings, family, key, staged, name)
        staged.replace(target_dir / name)
        result.written.append(key)
    for key in sorted(set(old) - set(new)):
        _remove_files(settings, family, key, stem, parts_only=False)
        result.removed.append(key)
    return result


def _parts(folder: Path, stem: str) -> list[Path]:
    """The appended parts (``<stem>~<n>.parquet``) of a source file's partition."""
    return list(folder.glob(f"{glob.escape(stem)}{PART_SEPARATOR}*.parquet"))


def _remove_files(settings: Settings, family: str, key: str, stem: str, *, parts_only: bool) -> None:
    """Remove a source file's appended parts in partition ``key`` (and its first file, unless ``parts_only``)
    with their cell counts, and the folders left empty."""
    for folder in (partition_dir(settings, family, key), *cells.partition_dirs(settings, family, key)):
        for path in _parts(folder, stem):
            path.unlink()
        if not parts_only:
            (folder / f"{stem}.parquet").unlink(missing_ok=True)
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def remove_file_outputs(settings: Settings, family: str, stem: str) -> None:
    """Forget a source file entirely (used when a file disappears upstream)."""
    state = read_state(settings, family, stem)
    if state is not None:
        publish(settings, family, stem, settings.lake_dir / ".empty", {}, state.partition_hashes())
    rejects_path(settings, family, stem).unlink(missing_ok=True)
    state_path(settings, family, stem).unlink(missing_ok=True)
