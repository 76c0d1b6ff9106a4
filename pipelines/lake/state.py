"""The raw lake on disk: partition files, per-file load state, and the swap that keeps unchanged partitions.

Layout: ``lake/raw/<family>/_partition=<key>/<file stem>.parquet`` — one Parquet file per source file and
partition, so the three BurstGPT files can share a day and each file is replaced on its own.
``lake/rejects/<family>/<file stem>.parquet`` holds that file's rejected lines (written even when empty).
``lake/_state/<family>/<file stem>.json`` records what the last load of the file produced: the landed
sha256, line counts and a content hash per partition. A partition whose hash is unchanged keeps its file
untouched (byte-identical), so downstream refreshes can target only what changed.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pipelines.atomic_write import write_json
from pipelines.lake.relation import PARTITION_COLUMN, PARTITION_DIR_PREFIX, ident
from pipelines.settings import Settings


@dataclass
class PartitionState:
    key: str
    rows: int
    content_hash: str


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
        parts = [PartitionState(**p) for p in doc.pop("partitions", [])]
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


def outputs_present(settings: Settings, state: FileLoadState) -> bool:
    """Whether every file the recorded load produced is still on disk."""
    parts = all(
        (partition_dir(settings, state.family, p.key) / f"{state.stem}.parquet").exists()
        for p in state.partitions
    )
    return parts and rejects_path(settings, state.family, state.stem).exists()


_PARQUET_MAGIC = b"PAR1"


def damaged_outputs(settings: Settings, state: FileLoadState) -> list[str]:
    """The lake files of the recorded load (partitions and rejects) that are missing, or that are not whole
    Parquet files (changed behind the warehouse's back: truncated, cut off, overwritten): each starts and
    ends with ``PAR1``, the footer's length before the last one."""
    paths = [partition_dir(settings, state.family, p.key) / f"{state.stem}.parquet" for p in state.partitions]
    paths.append(rejects_path(settings, state.family, state.stem))
    return [str(p) for p in paths if not _whole_parquet(p)]


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

    ``staging`` holds ``_partition=<key>/*.parquet``, one file each (the loader merges split partitions).
    """
    result = SwapResult([], [], [])
    for key, digest in sorted(new.items()):
        target_dir = partition_dir(settings, family, key)
        target = target_dir / f"{stem}.parquet"
        if old.get(key) == digest and target.exists():
            result.unchanged.append(key)
            continue
        (staged,) = sorted((staging / f"{PARTITION_DIR_PREFIX}{key}").glob("*.parquet"))
        target_dir.mkdir(parents=True, exist_ok=True)
        staged.replace(target)
        result.written.append(key)
    for key in sorted(set(old) - set(new)):
        target_dir = partition_dir(settings, family, key)
        (target_dir / f"{stem}.parquet").unlink(missing_ok=True)
        if target_dir.is_dir() and not any(target_dir.iterdir()):
            target_dir.rmdir()
        result.removed.append(key)
    shutil.rmtree(staging, ignore_errors=True)
    return result


def remove_file_outputs(settings: Settings, family: str, stem: str) -> None:
    """Forget a source file entirely (used when a file disappears upstream)."""
    state = read_state(settings, family, stem)
    if state is not None:
        publish(settings, family, stem, settings.lake_dir / ".empty", {}, state.partition_hashes())
    rejects_path(settings, family, stem).unlink(missing_ok=True)
    state_path(settings, family, stem).unlink(missing_ok=True)
