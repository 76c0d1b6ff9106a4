"""Vectorised CSV cell formatting: numbers as pandas prints them, timestamps, ids, UUIDs.

All functions return Arrow string arrays (nulls become empty cells), so a whole chunk formats in C.
"""

from __future__ import annotations

import io
from datetime import datetime
from functools import cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

ALNUM = b"0123456789abcdefghijklmnopqrstuvwxyz"
HEX = b"0123456789abcdef"


def epoch(text: str) -> int:
    """Seconds since the Unix epoch of an ISO timestamp with an offset (``2023-07-19 00:00:00+08:00``)."""
    return int(datetime.fromisoformat(text).timestamp())


def ints(values: np.ndarray, mask: np.ndarray | None = None) -> pa.Array:
    """Integers as ``123``; masked cells empty."""
    return pa.array(np.asarray(values, dtype=np.int64), mask=mask)


@cache
def _fractions(places: int) -> pa.Array:
    """``"0"`` then the shortest decimal digits of k / 10**places (``"5"``, ``"05"``, ``"125"``…)."""
    return pa.array(["0"] + [f"{k:0{places}d}".rstrip("0") for k in range(1, 10**places)])


def decimals(values: np.ndarray, places: int, mask: np.ndarray | None = None) -> pa.Array:
    """Non-negative floats rounded to ``places`` decimals, printed like Python/pandas (``936.0``,
    ``12.3``, ``99.125``); NaN or masked cells empty."""
    v = np.asarray(values, dtype=float)
    empty = np.isnan(v) if mask is None else (mask | np.isnan(v))
    scaled = np.rint(np.where(empty, 0.0, v) * 10**places).astype(np.int64)
    if (scaled < 0).any():
        raise ValueError("decimals() formats non-negative values only")
    whole = pc.cast(pa.array(scaled // 10**places, mask=empty), pa.string())
    frac = pc.take(_fractions(places), pa.array(scaled % 10**places))
    return pc.binary_join_element_wise(whole, frac, ".")


@cache
def _times_of_day() -> pa.Array:
    return pa.array([f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}" for s in range(86_400)])


def times(epoch_s: np.ndarray, offset_hours: int | None, mask: np.ndarray | None = None) -> pa.Array:
    """``YYYY-MM-DD HH:MM:SS+HH:00`` wall-clock strings at a UTC offset; ``offset_hours=None`` prints the
    UTC wall clock with no offset (naive). Masked cells are empty."""
    local = np.asarray(epoch_s, dtype=np.int64) + (offset_hours or 0) * 3600
    if mask is not None:
        local = np.where(mask, local[~mask][0] if (~mask).any() else 0, local)
    day = local // 86_400
    first = int(day.min()) if len(day) else 0
    span = np.arange(first, (int(day.max()) if len(day) else 0) + 1).astype("datetime64[D]")
    dates = pa.array(np.datetime_as_string(span)).cast(pa.string())
    text = pc.binary_join_element_wise(
        pc.take(dates, pa.array(day - first)), pc.take(_times_of_day(), pa.array(local % 86_400)), " "
    )
    if offset_hours is not None:
        sign = "+" if offset_hours >= 0 else "-"
        text = pc.binary_join_element_wise(text, f"{sign}{abs(offset_hours):02d}:00", "")
    if mask is not None:
        text = pc.if_else(pa.array(mask), pa.nulls(len(text), pa.string()), text)
    return text


def _fixed_strings(chars: np.ndarray) -> pa.Array:
    """Rows of a ``(n, width)`` uint8 array as strings."""
    n, width = chars.shape
    flat = np.ascontiguousarray(chars).view(f"S{width}").reshape(n)
    return pa.array(flat, type=pa.binary(width)).cast(pa.string())


def random_ids(
    rng: np.random.Generator, n: int, prefix: str, length: int, alphabet: bytes = ALNUM
) -> pa.Array:
    """``n`` ids of ``length`` characters: ``prefix`` then random characters of ``alphabet``."""
    head = np.frombuffer(prefix.encode(), dtype=np.uint8)
    body = np.frombuffer(alphabet, dtype=np.uint8)[rng.integers(0, len(alphabet), (n, length - len(head)))]
    return _fixed_strings(np.hstack([np.tile(head, (n, 1)), body]))


def uuids(rng: np.random.Generator, n: int) -> pa.Array:
    """``n`` random version-4 UUID strings (``8-4-4-4-12`` lowercase hex)."""
    nibbles = rng.integers(0, 16, (n, 32))
    nibbles[:, 12] = 4
    nibbles[:, 16] = 8 + nibbles[:, 16] % 4
    hexed = np.frombuffer(HEX, dtype=np.uint8)[nibbles]
    dash = np.full((n, 1), ord("-"), dtype=np.uint8)
    parts = [hexed[:, :8], dash, hexed[:, 8:12], dash, hexed[:, 12:16], dash, hexed[:, 16:20], dash]
    return _fixed_strings(np.hstack([*parts, hexed[:, 20:]]))


def csv_rows(columns: dict[str, pa.Array]) -> bytes:
    """The CSV data lines (no header) of equal-length columns; a cell that would need quoting is an error."""
    table = pa.table(columns)
    sink = io.BytesIO()
    pacsv.write_csv(table, sink, pacsv.WriteOptions(include_header=False, quoting_style="none"))
    return sink.getvalue()
