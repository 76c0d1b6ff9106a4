"""The one way to read the lake from DuckDB: ``read_parquet`` with ``_partition`` as text.

Hive partition folders are ``_partition=<key>``; the key is read as VARCHAR on every engine, or
``2023-07-01`` would become a DATE and ``0005`` an integer. Files of one family may differ in columns
(header-driven families), so columns are unioned by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

PARTITION_COLUMN = "_partition"
PARTITION_DIR_PREFIX = f"{PARTITION_COLUMN}="
FILE_COLUMN = "_lake_file"  # the Parquet file a row was read from, when a scan asks for it


def lit(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def ident(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def partition_glob(folder: Path) -> Path:
    """Every Parquet file of every partition under ``folder``."""
    return folder / f"{PARTITION_DIR_PREFIX}*" / "*.parquet"


def has_partition_files(folder: Path) -> bool:
    return any(folder.glob(f"{PARTITION_DIR_PREFIX}*/*.parquet"))


def parquet_scan(files: Path | Sequence[Path], *, hive: bool = True, file_column: bool = False) -> str:
    """``read_parquet(...)`` over a glob (one path) or a list of files; with ``hive``, the ``_partition``
    column comes from the folder names, as text; with ``file_column``, ``FILE_COLUMN`` names each row's
    file (as the path was given)."""
    listed = lit(str(files)) if isinstance(files, Path) else "[" + ", ".join(lit(str(f)) for f in files) + "]"
    partitioning = ", hive_partitioning = true, hive_types = {'_partition': 'VARCHAR'}" if hive else ""
    named = f", filename = {lit(FILE_COLUMN)}" if file_column else ""
    return f"read_parquet({listed}, union_by_name = true{partitioning}{named})"


def partitioned_scan(folder: Path) -> str:
    """Every row under a partitioned lake folder (``<folder>/_partition=<key>/*.parquet``)."""
    return parquet_scan(partition_glob(folder))


def empty_select(columns: Sequence[tuple[str, str]]) -> str:
    """A relation with these ``(name, type)`` columns and no rows (a family without files yet)."""
    cols = ", ".join(f"cast(null as {t}) as {ident(n)}" for n, t in columns)
    return f"select {cols} where false"
