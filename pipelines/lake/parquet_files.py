"""How the lake writes Parquet from Arrow (the fast wide path): zstd; delta encoding for
the columns that step from row to row, dictionaries for the rest.

A series' samples follow each other in a partition, so its times step by 15 s and its line numbers by 1:
delta encoding stores them in a few bits each, where dictionary indices took ~0.6 byte per value (a third
of a GPU_UTIL file's bytes).

Row groups carry min/max statistics of the columns a filter or a join names, so DuckDB skips the row groups
that cannot match: ``time`` (a row group is ~1.5 h of a day), ``_row_number`` (a join on a few lines, as the
repeats model and validation's first copies make, reads only the row groups holding them), ``cluster``,
``metric`` and ``_source_file``, one value per file (a filter on them skips every row group of the other
files), and ``value`` (validation's range rules look for the values outside a range: a row group within it
is not read). ``series`` has none: every row group holds every series.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

DELTA_ENCODED = ("time", "_row_number")
WITH_STATISTICS = ("time", "_row_number", "cluster", "metric", "_source_file", "value")


def _integer_like(kind: pa.DataType) -> bool:
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_integer(kind) or pa.types.is_timestamp(kind)


def writer_options(schema: pa.Schema) -> dict[str, Any]:
    """``pq.ParquetWriter`` keywords for a lake file of ``schema``."""
    delta = {
        name: "DELTA_BINARY_PACKED"
        for name in DELTA_ENCODED
        if name in schema.names and _integer_like(schema.field(name).type)
    }
    dictionary = [name for name in schema.names if name not in delta]
    return {
        "compression": "zstd",
        "use_dictionary": dictionary,
        "column_encoding": delta or None,
        "write_statistics": [name for name in WITH_STATISTICS if name in schema.names],
    }
