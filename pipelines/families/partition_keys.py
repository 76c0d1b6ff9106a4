"""Partition keys of the raw layer (docs/pages/architecture.md, Partitions). Keys are strings; the lake column is ``_partition``.

- AcmeTrace jobs: month of ``submit_time`` in UTC, ``YYYY-MM``.
- BurstGPT requests: day index ``Timestamp // 86400``, zero-padded to four digits (``0000``).
- Utilization and IPMI: UTC date of the sample, ``YYYY-MM-DD``.
- Previous-work traces and ``cluster_summary``: unpartitioned, stored as the single key ``all`` so every raw
  relation has the same shape on disk (``_partition=all``).
"""

from __future__ import annotations

from pipelines.families.registry import Partitioning

UNPARTITIONED_KEY = "all"

_SQL: dict[Partitioning, str] = {
    "month": "strftime(submit_time, '%Y-%m')",
    "day_index": "printf('%04d', cast(floor(timestamp_s / 86400) as bigint))",
    "date": "strftime(time, '%Y-%m-%d')",
    "none": f"'{UNPARTITIONED_KEY}'",
}


def partition_sql(partitioning: Partitioning) -> str:
    """A DuckDB expression over the raw columns that yields the row's partition key."""
    return _SQL[partitioning]


def day_index_key(timestamp_s: float) -> str:
    return f"{int(timestamp_s // 86400):04d}"
