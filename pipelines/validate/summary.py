"""Check results for ``trace-warehouse run``'s end-of-run summary (one line per check that found something,
then one per failed file of the per-file checks)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def _value(meta: dict[str, Any], key: str) -> Any:
    v = meta.get(key)
    return getattr(v, "value", v)


def _short(name: str, width: int) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def format_check_summary(evaluations: Iterable[Any]) -> str:
    """Summarize ``ExecuteInProcessResult.get_asset_check_evaluations()``: failed checks and checks with a
    count, then a totals line."""
    evaluations = list(evaluations)
    lines = []
    failed = 0
    for ev in sorted(evaluations, key=lambda e: (e.asset_key.to_user_string(), e.check_name)):
        meta = dict(ev.metadata or {})
        count = _value(meta, "count") or _value(meta, "dagster_dbt/failed_row_count") or 0
        if ev.passed and not count:
            continue
        failed += not ev.passed
        status = "passed" if ev.passed else ("ERROR" if ev.severity.value == "ERROR" else "WARN")
        kind = _value(meta, "kind") or "dbt test"
        rate = _value(meta, "rate") or 0.0
        lines.append(
            f"{ev.asset_key.to_user_string():<42} {_short(ev.check_name, 38):<38} {status:<6} {kind:<10} "
            f"{count:>10,} ({rate:.3%})"
        )
        lines += [f"    {f['file']}: {f['reason']}" for f in _value(meta, "failures") or ()]
    header = f"{'asset':<42} {'check':<38} {'status':<6} {'kind':<10} {'rows':>10}"
    body = [header, "-" * len(header), *lines] if lines else []
    body.append(f"{len(evaluations)} check(s) evaluated, {failed} failed, {len(lines)} with findings")
    return "\n".join(body)
