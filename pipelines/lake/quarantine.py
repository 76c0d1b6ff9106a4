"""The quarantine: rows that parse but cannot be true records, one row per (raw row, violated rule).

Layout: ``lake/quarantine/<family>/_partition=<key>/<file stem>.parquet`` — like the raw lake, one file per
source file and partition — with columns ``_source_file``, ``_row_number`` (plus ``series`` for the long
utilization families, whose raw rows are one cell of a wide line: ``(_source_file, _row_number, series)``),
``rule`` and ``details`` (the offending values as text, ``gpu_time=936.0 duration=117 gpu_num=8``). A unit's
file is replaced (temp file + rename) when that unit is validated again, and exists only when it has
quarantined rows; which units were validated, with what result, is in ``lake/_validation/<family>.json``.
``quarantine.<family>`` views read them (an empty typed view when a family has none); staging anti-joins
on the row key.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa

from pipelines.families.registry import family as family_of
from pipelines.lake.relation import PARTITION_DIR_PREFIX, empty_select, has_partition_files, partitioned_scan
from pipelines.settings import Settings

_KEY_TYPES = {"_source_file": pa.string(), "_row_number": pa.int64(), "series": pa.string()}


def row_key(family: str) -> tuple[str, ...]:
    """The columns that identify one raw row of ``family`` (and one quarantined row, with ``rule``)."""
    return family_of(family).row_key


def schema(family: str) -> pa.Schema:
    fields = [pa.field(name, _KEY_TYPES[name]) for name in row_key(family)]
    return pa.schema([*fields, pa.field("rule", pa.string()), pa.field("details", pa.string())])


def family_dir(settings: Settings, family: str) -> Path:
    return settings.quarantine_dir / family


def unit_path(settings: Settings, family: str, key: str, stem: str) -> Path:
    """The quarantine file of one source file's rows in one partition."""
    return family_dir(settings, family) / f"{PARTITION_DIR_PREFIX}{key}" / f"{stem}.parquet"


def clear(settings: Settings, family: str) -> None:
    """Drop the family's whole quarantine (before validating everything again)."""
    shutil.rmtree(family_dir(settings, family), ignore_errors=True)


def remove_units(settings: Settings, family: str, unit_ids: Sequence[str]) -> None:
    """Drop the quarantine files of units (``<partition>/<stem>``), and partition folders left empty."""
    for unit_id in unit_ids:
        key, stem = unit_id.split("/", 1)
        path = unit_path(settings, family, key, stem)
        path.unlink(missing_ok=True)
        if path.parent.is_dir() and not any(path.parent.iterdir()):
            path.parent.rmdir()


def view_sql(settings: Settings, family: str) -> str:
    """The body of ``quarantine.<family>``: every partition's file, or an empty typed relation."""
    root = family_dir(settings, family)
    if has_partition_files(root):
        return f"select * from {partitioned_scan(root)}"
    types = {pa.string(): "VARCHAR", pa.int64(): "BIGINT"}
    return empty_select([*((f.name, types[f.type]) for f in schema(family)), ("_partition", "VARCHAR")])
