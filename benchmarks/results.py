"""The results document (``benchmarks/results/latest.json``, kept as ``history/<timestamp>-<commit>.json``) and
its markdown tables (``latest.md``).

Top-level keys (the smoke test checks them): ``schema_version``, ``generated_at``, ``duration_s``,
``options``, ``host``, ``inputs``, ``stages`` (one entry per key of ``STAGE_KEYS``, each with ``status``),
``stages_ran``, ``ratios``, ``targets``, ``refresh``, ``memory_vs_size``, ``calibration``, ``full_shape``,
``whole_set``.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.markdown import render_markdown
from benchmarks.targets import compute_ratios, evaluate_targets, full_shape_summary
from pipelines.settings import PROJECT_ROOT

if TYPE_CHECKING:
    from benchmarks.harness import Benchmark

SCHEMA_VERSION = 1
HISTORY_DIR = "history"
TOP_LEVEL_KEYS = (
    "schema_version", "generated_at", "duration_s", "options", "host", "inputs", "stages", "stages_ran",
    "ratios", "targets", "refresh", "memory_vs_size", "calibration", "full_shape", "whole_set",
)  # fmt: skip
PACKAGES = ("duckdb", "dagster", "dbt-core", "dbt-duckdb", "great-expectations", "pandas", "pyarrow")


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.strip()


def _mem_total_mb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def host_info() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "mem_total_mb": _mem_total_mb(),
        "load_average_at_end": list(os.getloadavg()),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "packages": {p: _version(p) for p in PACKAGES},
        "git_commit": _git("rev-parse", "--short", "HEAD"),
        "git_dirty": bool(_git("status", "--porcelain")),
    }


def memory_vs_size(bench: Benchmark) -> dict[str, Any]:
    sizes = {}
    for label, size in bench.memory.get("sizes", {}).items():
        stage = bench.stages[f"memory_{label}"]
        sizes[label] = {
            **size,
            "peak_rss_mb": stage.peak_rss_mb,
            "work_s": stage.work_s,
            "status": stage.status,
        }
    return {"file": bench.memory.get("file"), "sizes": sizes}


def build_document(bench: Benchmark, started: float) -> dict[str, Any]:
    ratios = compute_ratios(bench.stages, bench.full_shape, bench.whole_set)
    return {
        "schema_version": SCHEMA_VERSION,
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": time.time() - started,
        "options": bench.options.as_json(),
        "host": host_info(),
        "inputs": bench.inputs,
        "stages": {name: stage.to_json() for name, stage in bench.stages.items()},
        "stages_ran": [name for name, stage in bench.stages.items() if stage.ok_runs],
        "ratios": {name: r.to_json() for name, r in ratios.items()},
        "targets": evaluate_targets(bench.stages, ratios, bench.options.scale),
        "refresh": bench.refresh,
        "memory_vs_size": memory_vs_size(bench),
        "calibration": bench.calibration,
        "full_shape": full_shape_summary(bench.full_shape, ratios),
        "whole_set": bench.whole_set,
    }


def history_name(stamp: str, host: dict[str, Any]) -> str:
    """``<UTC timestamp>-<commit>[-dirty].json``: one dated record per run, named for the code it measured."""
    commit = host.get("git_commit") or "unknown"
    return f"{stamp}-{commit}{'-dirty' if host.get('git_dirty') else ''}.json"


def write_results(bench: Benchmark, started: float, stamp: str) -> list[Path]:
    """Write ``latest.json`` and ``latest.md`` into the results folder and the same record as
    ``history/<stamp>-<commit>.json``."""
    doc = build_document(bench, started)
    out = bench.options.results_dir
    (out / HISTORY_DIR).mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=2, default=str) + "\n"
    paths = [out / HISTORY_DIR / history_name(stamp, doc["host"]), out / "latest.json", out / "latest.md"]
    paths[0].write_text(text, encoding="utf-8")
    paths[1].write_text(text, encoding="utf-8")
    paths[2].write_text(render_markdown(doc), encoding="utf-8")
    return paths
