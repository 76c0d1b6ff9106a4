"""A stage's runs summed up: medians of the runs, throughput, and its fixed cost from the tiny-input probe.

- ``wall_s``: process start → exit (what a user waits for).
- ``startup_s``: process start → "ready" (interpreter, imports, Dagster definitions / dbt module load).
- ``work_s``: "ready" → "done" (the stage's own work).
- ``fixed_s``: median ``work_s`` of the same stage on the tiny input (every file at the generator's minimum
  size): the part of the work that does not grow with the data — a Dagster run's launch, dbt's parse and
  connection, GX's context. ``net_work_s = work_s − fixed_s`` is what the data costs.
- ``rows_per_s``/``mb_per_s``: rows and input MiB over ``work_s``.
- ``peak_rss_mb``: median over runs of the process tree's peak; ``peak_rss_mb_max``: the largest.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks.runner import MB, RunRecord


def median(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


@dataclass
class StageSummary:
    name: str
    description: str
    runs: list[RunRecord] = field(default_factory=list)
    probes: list[RunRecord] = field(default_factory=list)  # the same stage on the tiny input
    skipped: str | None = None  # why the stage did not run at all

    @property
    def ok_runs(self) -> list[RunRecord]:
        return [r for r in self.runs if r.ok]

    @property
    def status(self) -> str:
        if self.skipped is not None:
            return "skipped"
        if not self.runs:
            return "not run"
        if any(r.status == "unavailable" for r in self.runs):
            return "unavailable"
        if all(r.ok for r in self.runs):
            return "ok"
        return "failed" if not self.ok_runs else "partly failed"

    @property
    def note(self) -> str:
        if self.skipped is not None:
            return self.skipped
        errors = [r.error for r in self.runs if r.error]
        return errors[0] if errors else ""

    def _median(self, attr: str, runs: Sequence[RunRecord] | None = None) -> float | None:
        return median([getattr(r, attr) for r in (self.ok_runs if runs is None else runs)])

    @property
    def work_s(self) -> float | None:
        return self._median("work_s")

    @property
    def wall_s(self) -> float | None:
        return self._median("wall_s")

    @property
    def fixed_s(self) -> float | None:
        return self._median("work_s", [p for p in self.probes if p.ok])

    @property
    def net_work_s(self) -> float | None:
        work, fixed = self.work_s, self.fixed_s
        return None if work is None or fixed is None else max(work - fixed, 0.0)

    @property
    def cpu_s(self) -> float | None:
        return self._median("cpu_s")

    @property
    def peak_rss_mb(self) -> float | None:
        return self._median("peak_rss_mb")

    @property
    def rows(self) -> int | None:
        values = [r.rows for r in self.ok_runs if r.rows is not None]
        return values[0] if values else None

    @property
    def bytes(self) -> int | None:
        values = [r.bytes for r in self.ok_runs if r.bytes is not None]
        return values[0] if values else None

    def to_json(self) -> dict[str, Any]:
        work, rows, size = self.work_s, self.rows, self.bytes
        peaks = [r.peak_rss_mb for r in self.ok_runs]
        return {
            "status": self.status,
            "description": self.description,
            "note": self.note,
            "runs_ok": len(self.ok_runs),
            "runs": len(self.runs),
            "wall_s": self.wall_s,
            "startup_s": self._median("startup_s"),
            "work_s": work,
            "fixed_s": self.fixed_s,
            "net_work_s": self.net_work_s,
            "rows": rows,
            "bytes": size,
            "rows_per_s": rows / work if rows is not None and work else None,
            "mb_per_s": size / MB / work if size is not None and work else None,
            "cpu_s": self.cpu_s,
            "peak_rss_mb": self.peak_rss_mb,
            "peak_rss_mb_max": max(peaks) if peaks else None,
            "max_process_rss_mb": self._median("max_process_rss_mb"),
            "detail": self.ok_runs[-1].detail if self.ok_runs else {},
            "run_records": [r.to_json() for r in self.runs],
            "probe_records": [r.to_json() for r in self.probes],
        }
