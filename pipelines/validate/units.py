"""The units validation results are kept for: one source file's rows in one partition (one Parquet file).

The lake already records, per source file, a content hash of every partition it wrote
(``lake/_state/<family>/<stem>.json``); a unit is that (stem, partition, content hash). A unit whose hash and
suite version match its stored result is not validated again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipelines.lake.relation import PARTITION_DIR_PREFIX, lit
from pipelines.lake.state import family_states, partition_dir
from pipelines.settings import Settings


@dataclass(frozen=True)
class Unit:
    family: str
    stem: str
    source_file: str  # the ``_source_file`` value of its rows
    partition: str
    content_hash: str
    rows: int
    path: Path

    @property
    def id(self) -> str:
        return f"{self.partition}/{self.stem}"


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
        for part in state.partitions:
            path = partition_dir(settings, family, part.key) / f"{state.stem}.parquet"
            if path.exists():
                units[path] = Unit(
                    family, state.stem, state.mirror_path, part.key, part.content_hash, part.rows, path
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
