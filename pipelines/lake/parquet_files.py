"""How the lake writes Parquet from Arrow (the fast wide path): zstd; delta encoding for
the columns that step from row to row, dictionaries for the rest.

A series' samples follow each other in a partition, so its times step by 15 s and its line numbers by 1:
delta encoding stores them in a few bits each, where dictionary indices took ~0.6 byte per value (a third
of a GPU_UTIL file's bytes).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

DELTA_ENCODED = ("time", "_row_number")


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
    return {"compression": "zstd", "use_dictionary": dictionary, "column_encoding": delta or None}
