"""An entry of an export's ``consumer_effects``: what its consumer (or the export itself) does to the rows
written, counted in SQL (``job_effects.py``, ``request_effects.py``), and the line the CLI prints for it."""

from __future__ import annotations

from typing import Any


def effect(
    consumer: str,
    kind: str,
    rows: int,
    reason: str,
    lift: str | None = None,
    *,
    unit: str = "jobs",
    **counts: int,
) -> dict[str, Any]:
    """``kind``: drops, trims, clips, ignores, reads or counts; ``counts``: further figures (tokens lost …)."""
    return {"consumer": consumer, "effect": kind, "rows": int(rows), "unit": unit, "reason": reason,
            "lift": lift, **{k: int(v) for k, v in counts.items()}}  # fmt: skip


def warning_line(e: dict[str, Any]) -> str:
    """One effect as the CLI prints it."""
    lift = f"; to change it: {e['lift']}" if e.get("lift") else ""
    unit = e.get("unit", "jobs")
    noun = unit.removesuffix("s") if e["rows"] == 1 else unit
    return f"warning: {e['consumer']} {e['effect']} {e['rows']:,} {noun}: {e['reason']}{lift}"
