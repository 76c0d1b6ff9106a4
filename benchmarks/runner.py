"""Start one stage process (``python -m benchmarks.stage``), measure it, and read what it reported."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.proctree import measure
from benchmarks.warehouses import process_env
from pipelines.settings import PROJECT_ROOT

MB = 1024 * 1024


@dataclass
class RunRecord:
    """One run of one stage: times in seconds, memory in MiB (``MB`` below means MiB)."""

    label: str
    status: str  # ok | failed | unavailable | timeout
    wall_s: float  # process start → exit, as measured from outside
    startup_s: float | None  # process start → "ready" (interpreter, imports, engine definitions)
    work_s: float | None  # "ready" → "done"
    peak_rss_mb: float  # whole process tree
    max_process_rss_mb: float | None  # the largest single process (exact high-water mark; None: not known)
    rows: int | None = None
    bytes: int | None = None
    cpu_s: float | None = None  # user + system CPU of the stage process (and the children it reaped)
    detail: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    log: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class StageRunner:
    """Runs stages with a time limit; every run's log and result file stay in ``work_dir/stages``."""

    def __init__(self, work_dir: Path, timeout_s: float) -> None:
        self.dir = work_dir / "stages"
        self.timeout_s = timeout_s
        self._count = 0

    def run(
        self, stage: str, params: Mapping[str, Any], settings_env: Mapping[str, str], label: str | None = None
    ) -> RunRecord:
        self._count += 1
        label = label or stage
        name = f"{self._count:03d}-{label}"
        result_path, log_path = self.dir / f"{name}.json", self.dir / f"{name}.log"
        argv = [sys.executable, "-m", "benchmarks.stage", stage, "--params", json.dumps(dict(params))]
        argv += ["--result", str(result_path)]
        proc = measure(
            argv, env=process_env(settings_env), cwd=PROJECT_ROOT, log_path=log_path, timeout_s=self.timeout_s
        )
        doc: dict[str, Any] = json.loads(result_path.read_text("utf-8")) if result_path.is_file() else {}
        status = "timeout" if proc.timed_out else str(doc.get("status") or "failed")
        error = doc.get("error")
        if status != "ok" and not error:
            error = f"exit status {proc.returncode}; see {log_path}: {_tail(log_path)}"
        ready, done = doc.get("ready_at"), doc.get("done_at")
        return RunRecord(
            label=label,
            status=status,
            wall_s=proc.wall_s,
            startup_s=ready - proc.spawned_at if ready is not None else None,
            work_s=done - ready if ready is not None and done is not None else None,
            peak_rss_mb=proc.peak_rss / MB,
            max_process_rss_mb=proc.max_process_rss / MB or None,
            rows=doc.get("rows"),
            bytes=doc.get("bytes"),
            cpu_s=proc.cpu_s,
            detail=doc.get("detail") or {},
            error=error,
            log=str(log_path),
        )


def _tail(path: Path, lines: int = 5) -> str:
    try:
        return " | ".join(path.read_text("utf-8", errors="replace").strip().splitlines()[-lines:])
    except OSError:
        return ""
