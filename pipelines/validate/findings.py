"""What one GX validation found for one rule, and how violating rows are shown (``details``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from expectations.rules import Rule
from pipelines.lake.relation import ident, lit


def details_sql(columns: Sequence[str]) -> str:
    """The offending values as text, ``gpu_time=936.0 duration=117 gpu_num=8`` (``null`` for NULL)."""
    if not columns:
        return "''"
    parts = [f"{lit(c + '=')} || coalesce(cast({ident(c)} as varchar), 'null')" for c in columns]
    return f"concat_ws(' ', {', '.join(parts)})"


def text(value: Any) -> str:
    """A value as shown in sample rows (``null`` for NULL)."""
    return "null" if value is None else str(value)


@dataclass
class Findings:
    """What one GX validation found for one rule: the total and, where the batch spans units, per unit."""

    rule: Rule
    count: int
    evaluated: int
    query: str | None  # the violating rows (GX's query, kept as a table): index and detail columns
    index: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()  # the columns ``query`` returns
    error: str | None = None
    per_key: dict[tuple[str, ...], int] = field(default_factory=dict)
    samples: list[dict[str, str]] = field(default_factory=list)


def shown_columns(found: Findings, available: Iterable[str]) -> tuple[str, ...]:
    """Of the ``available`` columns of GX's violating rows (the details of every rule of the batch), those
    ``violating_rows_sql`` reads for ``found.rule``: the index, which holds every ``extra`` column, and the
    rule's own. The rows are kept with these alone: a common flag violates on millions of rows."""
    wanted = {*found.index, *found.rule.detail_columns}
    return tuple(c for c in available if c in wanted)


def violating_rows_sql(found: Findings, extra: Sequence[str] = ()) -> str:
    """The violating rows of ``found`` (``found.query``: every reported column) with their index columns,
    ``extra`` columns and ``details``: the rule's columns outside the index."""
    keys = [*found.index, *extra]
    shown = [c for c in found.rule.detail_columns if c in found.columns and c not in keys]
    picked = ", ".join(ident(c) for c in dict.fromkeys(keys))
    return f"select {picked}, {details_sql(shown)} as details from ({found.query})"
