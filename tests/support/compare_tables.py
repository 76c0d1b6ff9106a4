"""Row-for-row comparison of two builds of one table (DuckDB vs Spark), tolerant only where it must be.

Integers, text, booleans, dates and timestamps must be equal; a value where either side is a float (a
double) must agree within a relative tolerance (1e-9 by default; NaN equals NaN). Rows are matched as
multisets: both sides are sorted on a key that leaves the doubles out, then on the doubles, so a double
that differs in its last bits neither reorders nor unmatches rows.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

REL_TOL = 1e-9


@dataclass(frozen=True)
class Table:
    """A table's column names and rows (tuples in column order)."""

    columns: tuple[str, ...]
    rows: tuple[tuple, ...]

    @classmethod
    def of(cls, columns: Iterable[str], rows: Iterable[Sequence]) -> Table:
        return cls(tuple(c.lower() for c in columns), tuple(tuple(r) for r in rows))


@dataclass
class Comparison:
    name: str
    differences: list[str] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return not self.differences

    def __str__(self) -> str:
        if self.equal:
            return f"{self.name}: equal"
        shown = "\n  ".join(self.differences[:20])
        more = f"\n  ... {len(self.differences) - 20} more" if len(self.differences) > 20 else ""
        return f"{self.name}: {len(self.differences)} difference(s)\n  {shown}{more}"


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float | Decimal):
        return "float"
    if isinstance(value, dt.datetime):
        return "timestamp"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, str):
        return "text"
    return type(value).__name__


def _is_double(value: object) -> bool:
    return isinstance(value, float | Decimal)


def values_equal(left: object, right: object, rel_tol: float = REL_TOL) -> bool:
    """Equal by the rules above: exact unless a double is involved, then within ``rel_tol`` relative."""
    if left is None or right is None:
        return left is None and right is None
    if _is_double(left) or _is_double(right):
        if _kind(left) not in ("int", "float") or _kind(right) not in ("int", "float"):
            return False
        a, b = float(left), float(right)  # type: ignore[arg-type]
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b or math.isclose(a, b, rel_tol=rel_tol, abs_tol=0.0)
    if _kind(left) != _kind(right):
        return False
    if (
        isinstance(left, dt.datetime)
        and isinstance(right, dt.datetime)
        and (left.tzinfo is None) != (right.tzinfo is None)
    ):
        return False  # naive UTC on both engines; an aware value means a zone crept in
    return left == right


def _sort_key(row: tuple, double_columns: frozenset[int]) -> tuple:
    def part(value: object) -> tuple:
        kind = _kind(value)
        if kind == "null":
            return (0, "", "")
        if kind == "float":
            number = float(value)  # type: ignore[arg-type]
            return (1, "float", "nan" if math.isnan(number) else f"{number:+.6e}")
        return (1, kind, repr(value) if kind != "text" else value)

    exact = tuple(part(v) for i, v in enumerate(row) if i not in double_columns)
    doubles = tuple(
        (v is None, float(v) if v is not None and not math.isnan(float(v)) else 0.0)
        for i, v in enumerate(row)
        if i in double_columns
    )
    return exact, doubles


def compare_tables(name: str, left: Table, right: Table, rel_tol: float = REL_TOL) -> Comparison:
    """Compare two builds of table ``name``: same columns, same number of rows, every row equal."""
    result = Comparison(name)
    if set(left.columns) != set(right.columns):
        only_left = sorted(set(left.columns) - set(right.columns))
        only_right = sorted(set(right.columns) - set(left.columns))
        result.differences.append(f"columns differ: only left {only_left}, only right {only_right}")
        return result
    order = [right.columns.index(c) for c in left.columns]
    right_rows = [tuple(row[i] for i in order) for row in right.rows]
    if len(left.rows) != len(right_rows):
        result.differences.append(f"row count: left {len(left.rows)}, right {len(right_rows)}")
    double_columns = frozenset(
        i for i in range(len(left.columns)) if any(_is_double(r[i]) for r in (*left.rows, *right_rows))
    )
    ordered_left = sorted(left.rows, key=lambda r: _sort_key(r, double_columns))
    ordered_right = sorted(right_rows, key=lambda r: _sort_key(r, double_columns))
    for n, (a, b) in enumerate(zip(ordered_left, ordered_right, strict=False)):
        bad = [
            f"{column}: {va!r} != {vb!r}"
            for column, va, vb in zip(left.columns, a, b, strict=True)
            if not values_equal(va, vb, rel_tol)
        ]
        if bad:
            result.differences.append(f"row {n} (sorted): " + "; ".join(bad))
    return result


def compare_builds(
    left: Mapping[str, Table], right: Mapping[str, Table], rel_tol: float = REL_TOL
) -> list[Comparison]:
    """Compare every table of two builds; a table that only one side has is a difference too."""
    results = []
    for name in sorted(set(left) | set(right)):
        if name not in left or name not in right:
            side = "left" if name in left else "right"
            results.append(Comparison(name, [f"only the {side} build has this table"]))
        else:
            results.append(compare_tables(name, left[name], right[name], rel_tol))
    return results
