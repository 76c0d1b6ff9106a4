"""The units validation results are kept for: one Parquet file of the raw lake, a source file's rows in one
partition (or a part of them an appended tail added, ``lake/state.py``).

The lake already records, per source file, the content hash of every file it wrote
(``lake/_state/<family>/<stem>.json``); a unit is that (file, partition, content hash). A unit whose hash and
suite version match its stored result is not validated again: a refresh validates only the new parts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipelines.lake.relation import PARTITION_DIR_PREFIX, lit
from pipelines.lake.state import family_states, partition_files
from pipelines.settings import Settings


@dataclass(frozen=True)
class Unit:
    family: str
    stem: str  # of its Parquet file: the source file's stem, ``<stem>~<n>`` for an appended part
    source_file: str  # the ``_source_file`` value of its rows
    partition: str
    content_hash: str
    rows: int
    path: Path

    @property
    def id(self) -> str:
        return f"{self.partition}/{self.stem}"

    @property
    def file(self) -> str:
        """Its path as a scan with ``FILE_COLUMN`` names it."""
        return str(self.path)


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _unrecorded(family: str, path: Path) -> Unit:
    """A Parquet file in the lake that no load state lists (written by hand): hashed from its bytes."""
    source, rows = duckdb.sql(
        f"select min(_source_file), count(*) from read_parquet({lit(str(path))})"
    ).fetchone() or (None, 0)
    key = path.parent.name.removeprefix(PARTITION_DIR_PREFIX)
    return Unit(family, path.stem, str(source), key, _file_digest(path), int(rows), path)


def family_units(settings: Settings, family: str) -> list[Unit]:
    """Every unit of ``family`` present in the raw lake, ordered by (partition, stem)."""
    units: dict[Path, Unit] = {}
    for state in family_states(settings, family):
        for partition, part, path in partition_files(settings, state):
            if path.exists():
                units[path] = Unit(
                    family, path.stem, state.mirror_path, partition.key, part.content_hash, part.rows, path
                )
    root = settings.raw_dir / family
    for path in root.glob(f"{PARTITION_DIR_PREFIX}*/*.parquet") if root.is_dir() else ():
        if path not in units:
            units[path] = _unrecorded(family, path)
    return sorted(units.values(), key=lambda u: (u.partition, u.stem))


def inputs_key(version: str, units: Iterable[Unit]) -> str:
    """A hash of a suite version and the content of some units: what a stored result was computed from."""
    digest = hashlib.sha256(version.encode())
    for unit in sorted(units, key=lambda u: (u.family, u.id)):
        digest.update(f"\0{unit.family}\0{unit.id}\0{unit.content_hash}".encode())
    return digest.hexdigest()[:32]
