"""The whole-set phase: every utilization file through the whole graph, as a user runs it.

1. ``whole_set_generate``: ``trace-warehouse sample``'s generator writes a real-shaped mirror of every
   utilization file (all metrics, both clusters, IPMI, split metrics as their pieces) at ``--util-nodes``
   width × ``whole_set_days(scale)`` days; the other files at the sample's scale.
2. ``whole_set_graph``: ``trace-warehouse run --source mirror --mirror M`` on a new warehouse (stage
   ``cli_run``): time per layer and the slowest nodes from Dagster's event log and dbt's run results.
   Then the disk it keeps beside the mirror (landing + lake + trace.duckdb and its snapshot, real bytes,
   a hard link to the mirror counted once).
3. ``whole_set_cookbook``: the five cookbook questions on the built warehouse beside their lake queries.
4. ``whole_set_rerun``: the same command again, nothing changed upstream.
5. ``whole_set_pyarrow``: pyarrow's bare ``read_csv`` of the same CSV files, one after another.
6. ``whole_set_refresh``: one new day appended to every utilization file of the mirror in place (for a
   metric split into dated pieces, to its newest piece), MANIFEST.json updated; the command again.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks import inputs, warehouses
from benchmarks.options import (
    COOKBOOK_REPEATS,
    WHOLE_SET_SAMPLE_SCALE,
    whole_set_days,
)
from benchmarks.run_timings import disk_bytes
from pipelines.families.upstream import HF_MIRROR_PREFIX, UTILIZATION_DIR

if TYPE_CHECKING:
    from benchmarks.harness import Benchmark

_PIECE = re.compile(r"^(?P<metric>.+)-(?P<day>\d{4}-\d{2}-\d{2})\.csv$")


def utilization_paths(mirror: Path) -> list[Path]:
    return sorted(p for p in (mirror / HF_MIRROR_PREFIX / UTILIZATION_DIR).rglob("*.csv") if p.is_file())


def newest_files(paths: list[Path]) -> list[Path]:
    """Every file, except that a metric split into dated pieces (``GPU_UTIL-2023-07-19.csv``, …) is
    represented by its newest piece only: the one a new day is appended to."""
    newest: dict[tuple[Path, str], Path] = {}
    whole = []
    for path in paths:
        match = _PIECE.match(path.name)
        if match is None:
            whole.append(path)
            continue
        key = (path.parent, match["metric"])
        if key not in newest or newest[key].name < path.name:
            newest[key] = path
    return sorted([*whole, *newest.values()])


def append_day_everywhere(mirror: Path) -> dict[str, Any]:
    """One new day in every utilization file of ``mirror`` (set-up, not measured); MANIFEST.json updated."""
    candidates = newest_files(utilization_paths(mirror))
    rows = {p.relative_to(mirror).as_posix(): inputs.append_utilization_day(p) for p in candidates}
    changed = [path for path, n in rows.items() if n]  # a header-only file has no day to repeat
    inputs.refresh_manifest(mirror, changed)
    return {"files_appended": len(changed), "files_without_data": len(rows) - len(changed),
            "appended_rows": sum(rows.values())}  # fmt: skip


def beside_mirror_bytes(wh: Path, mirror: Path) -> dict[str, int]:
    """Real bytes the warehouse keeps: landing, lake, trace.duckdb (+ snapshot); the mirror's inodes first,
    so a landed hard link to a mirror file adds nothing."""
    seen: set[tuple[int, int]] = set()
    disk_bytes([mirror], seen)
    parts = {
        "landing_bytes": [wh / "landing"],
        "lake_bytes": [wh / "lake"],
        "duckdb_bytes": [p for p in (wh / "trace.duckdb", wh / "published" / "trace.duckdb") if p.exists()],
    }
    out = {name: disk_bytes([p for p in paths if p.exists()], seen) for name, paths in parts.items()}
    return out | {"total_bytes": sum(out.values())}


def run_phase(bench: Benchmark) -> None:
    from benchmarks.harness import say

    o = bench.options
    mirror, wh = bench.work / "whole-set-mirror", bench.work / "wh-whole-set"
    days = whole_set_days(o.scale)
    params = {"scale": min(o.scale, WHOLE_SET_SAMPLE_SCALE), "util_nodes": o.util_nodes, "util_days": days,
              "gpu_util_days": days, "seed": o.seed, "out": str(mirror)}  # fmt: skip
    warehouses.remove(mirror)
    rec = bench.record_run("whole_set_generate", bench.runner.run("generate", params, {}))
    if not rec.ok:
        raise RuntimeError(f"the whole-set mirror could not be generated: {rec.error}")
    csvs = sorted(p for p in mirror.rglob("*.csv") if p.is_file())
    util = utilization_paths(mirror)
    bench.whole_set = {
        "nodes": o.util_nodes, "days": days, "sample_scale": params["scale"],
        "csv_files": len(csvs), "csv_bytes": sum(p.stat().st_size for p in csvs),
        "utilization_files": len(util), "utilization_bytes": sum(p.stat().st_size for p in util),
        "utilization_rows": sum(inputs.count_lines(p) for p in util),
    }  # fmt: skip
    say(
        f"whole set: {len(util)} utilization files, {bench.whole_set['utilization_bytes']:,} bytes, "
        f"{bench.whole_set['utilization_rows']:,} lines; {len(csvs)} CSV files in all"
    )
    env = warehouses.warehouse_env(wh, mirror)
    cli = {"mirror": str(mirror), "csv_bytes": bench.whole_set["csv_bytes"]}
    runs = o.runs_of("whole_set")
    for i in range(runs):
        warehouses.remove(wh)  # a first run: no landing, no lake, no Dagster history
        graph = bench.record_run("whole_set_graph", bench.runner.run("cli_run", cli, env))
        if not graph.ok:
            raise RuntimeError(f"the whole graph failed: {graph.error}")
        if i == 0:
            bench.whole_set["disk"] = beside_mirror_bytes(wh, mirror)
            cookbook = {"repeats": COOKBOOK_REPEATS}
            bench.record_run("whole_set_cookbook", bench.runner.run("cookbook", cookbook, env))
        bench.record_run("whole_set_rerun", bench.runner.run("cli_run", cli, env))
        bench.record_run(
            "whole_set_pyarrow", bench.runner.run("bare_read_pyarrow", {"paths": [str(p) for p in csvs]}, {})
        )
    bench.whole_set["refresh"] = append_day_everywhere(mirror)
    bench.record_run("whole_set_refresh", bench.runner.run("cli_run", cli, env))
    warehouses.remove(wh)
    warehouses.remove(mirror)
