"""The quarantine: rows that parse but cannot be true records, one row per (raw row, violated rule).

Layout: ``lake/quarantine/<family>/_partition=<key>/quarantine.parquet`` with columns ``_source_file``,
``_row_number`` (plus ``series`` for the long utilization families, whose raw rows are one cell of a wide
line: ``(_source_file, _row_number, series)``), ``rule`` and ``details`` (the offending values as text,
``gpu_time=936.0 duration=117 gpu_num=8``). A partition's file is replaced whole (temp file + rename) each
time that partition is validated, and written even when empty, so "validated, nothing quarantined" is
visible. ``quarantine.<family>`` views read them (an empty typed view when a family has none); staging
anti-joins on the row key.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.families.registry import family as family_of
from pipelines.lake.atomic import replacing
from pipelines.lake.relation import PARTITION_DIR_PREFIX, empty_select, has_partition_files, partitioned_scan
from pipelines.settings import Settings

FILE_NAME = "quarantine.parquet"
_KEY_TYPES = {"_source_file": pa.string(), "_row_number": pa.int64(), "series": pa.string()}


def row_key(family: str) -> tuple[str, ...]:
    """The columns that identify one raw row of ``family`` (and one quarantined row, with ``rule``)."""
    return family_of(family).row_key


def schema(family: str) -> pa.Schema:
    fields = [pa.field(name, _KEY_TYPES[name]) for name in row_key(family)]
    return pa.schema([*fields, pa.field("rule", pa.string()), pa.field("details", pa.string())])


def family_dir(settings: Settings, family: str) -> Path:
    return settings.quarantine_dir / family


def partition_path(settings: Settings, family: str, key: str) -> Path:
    return family_dir(settings, family) / f"{PARTITION_DIR_PREFIX}{key}" / FILE_NAME


def write_partition(settings: Settings, family: str, key: str, rows: pd.DataFrame) -> int:
    """Replace the partition's quarantine with ``rows`` (columns as ``schema(family)``); returns the number
    of distinct raw rows quarantined."""
    sch = schema(family)
    frame = rows.reindex(columns=sch.names)
    frame = frame.sort_values([*row_key(family), "rule"], kind="stable") if len(frame) else frame
    table = pa.Table.from_pandas(frame, schema=sch, preserve_index=False)
    with replacing(partition_path(settings, family, key)) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return int(frame.drop_duplicates(list(row_key(family))).shape[0]) if len(frame) else 0


def remove_stale_partitions(settings: Settings, family: str, keep: Sequence[str]) -> list[str]:
    """Drop the quarantine of partitions that no longer exist in the raw lake."""
    root = family_dir(settings, family)
    removed = []
    if not root.is_dir():
        return removed
    for folder in sorted(root.glob(f"{PARTITION_DIR_PREFIX}*")):
        key = folder.name.removeprefix(PARTITION_DIR_PREFIX)
        if key not in keep:
            shutil.rmtree(folder)
            removed.append(key)
    return removed


def view_sql(settings: Settings, family: str) -> str:
    """The body of ``quarantine.<family>``: every partition's file, or an empty typed relation."""
    root = family_dir(settings, family)
    if has_partition_files(root):
        return f"select * from {partitioned_scan(root)}"
    types = {pa.string(): "VARCHAR", pa.int64(): "BIGINT"}
    return empty_select([*((f.name, types[f.type]) for f in schema(family)), ("_partition", "VARCHAR")])
