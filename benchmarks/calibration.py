"""The calibration table: published value, generated value (SQL on the built marts), difference, pass.

``calibration_table(duckdb_path, scale)`` runs every query of ``benchmarks.calibration_sql`` read-only and
pairs its values with ``benchmarks.published``. A query that cannot run (its mart is not built) leaves its
rows "not measured" with the error, and the others still count.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.calibration_sql import MARTS, QUERIES
from benchmarks.published import Published, published_numbers


@dataclass(frozen=True)
class CalibrationRow:
    key: str
    label: str
    unit: str
    published: float
    generated: float | None  # normalized by --scale where the published value is a full-size count
    difference: float | None  # generated − published, in the unit (shares: fraction, shown in pp)
    tolerance: str
    passed: bool | None  # None: not measured
    source: str
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def measured_values(duckdb_path: Path) -> tuple[dict[str, float], dict[str, str]]:
    """Every (key, value) the queries return, and the error of each query that failed."""
    import duckdb

    values: dict[str, float] = {}
    errors: dict[str, str] = {}
    con = duckdb.connect(str(duckdb_path), read_only=True)
    try:
        con.execute("set TimeZone = 'UTC'")
        for query in QUERIES:
            try:
                rows = con.execute(query.sql).fetchall()
            except duckdb.Error as exc:
                errors[query.name] = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
                continue
            values |= {str(k): float(v) for k, v in rows if k is not None and v is not None}
    finally:
        con.close()
    return values, errors


def compare(pub: Published, generated: float | None, scale: float, note: str = "") -> CalibrationRow:
    if generated is not None and pub.per_scale:
        generated = generated / scale
    passed = None if generated is None else pub.tolerance.allows(pub.value, generated)
    return CalibrationRow(
        key=pub.key,
        label=pub.label,
        unit=pub.unit,
        published=pub.value,
        generated=generated,
        difference=None if generated is None else generated - pub.value,
        tolerance=pub.tolerance.describe(pub.unit),
        passed=passed,
        source=pub.source,
        note=note,
    )


def calibration_table(duckdb_path: Path, scale: float) -> dict[str, Any]:
    values, errors = measured_values(duckdb_path)
    error_note = "; ".join(f"{name}: {err}" for name, err in errors.items())
    rows = [
        compare(pub, values.get(pub.key), scale, "" if pub.key in values else error_note or "no such rows")
        for pub in published_numbers()
    ]
    return {
        "source": "dbt marts (benchmarks/calibration_sql.py)",
        "marts": list(MARTS),
        "scale": scale,
        "passed": sum(r.passed is True for r in rows),
        "failed": sum(r.passed is False for r in rows),
        "not_measured": sum(r.passed is None for r in rows),
        "query_errors": errors,
        "rows": [r.to_json() for r in rows],
    }
