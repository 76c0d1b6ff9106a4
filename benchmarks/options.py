"""The harness's command line."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from pipelines.settings import PROJECT_ROOT

RESULTS_DIR = PROJECT_ROOT / "benchmarks" / "results"
KALOS_NODES = 293  # Kalos's real width: 293 nodes × 8 GPUs (DATASETS.md)
MIN_UTIL_NODES = 4
GPU_UTIL_DAYS = 7  # one day of every metric and a week of GPU_UTIL
TINY_SCALE = 1e-9  # every file at the generator's minimum size (its real rows + 40 synthetic ones)
MEMORY_FACTORS = (0.25, 1.0, 4.0)  # sizes of the utilization file in the memory benchmark
# Phases the harness can --skip, and the stages (result keys) each one measures.
PHASE_STAGES: dict[str, tuple[str, ...]] = {
    "fetch": ("fetch",),
    "load_utilization": ("load_utilization",),
    "validate": ("validate",),
    "dbt_build": ("dbt_build",),
    "dbt_build_spark": ("dbt_build_spark",),
    "report": ("report",),
    "pipeline_total": ("pipeline_total",),
    "baselines": ("bare_read", "pandas_notebook"),
    "refresh": ("refresh_load", "refresh_validate", "refresh_dbt", "refresh_unchanged"),
    "memory": (*(f"memory_{f:g}x" for f in MEMORY_FACTORS), "validate_utilization"),
    "calibration": ("calibration_load", "calibration_dbt"),
    "full_shape": (
        "full_shape_generate",
        "full_shape_load",
        "full_shape_validate",
        "full_shape_dbt",
        "full_shape_pyarrow",
        "full_shape_duckdb",
    ),
    "whole_set": (
        "whole_set_generate",
        "whole_set_graph",
        "whole_set_rerun",
        "whole_set_refresh",
        "whole_set_pyarrow",
        "whole_set_cookbook",
    ),
}
# Phases (and the generator, and the Spark build) whose one run takes minutes at scale 1.0: they run
# --expensive-runs times (default 1), so that `make bench` measures every phase in under an hour on two cores.
EXPENSIVE_PHASES = (
    "generate", "dbt_build_spark", "load_utilization", "memory", "calibration", "full_shape", "whole_set",
)  # fmt: skip
EXPENSIVE_RUNS = 1
PHASES = tuple(PHASE_STAGES)
# The full-shape stage: one utilization file at the real shape — Kalos GPU_UTIL, 293 nodes × 8
# GPUs, 14 days of 15-s samples (~0.94 GB) at scale 1.0; days and nodes shrink with --scale.
FULL_SHAPE_FILE = "kalos/GPU_UTIL"
FULL_SHAPE_DAYS = 14
UPSTREAM_UTILIZATION_BYTES = 80e9  # the whole utilization set upstream, ~80 GB (DATASETS.md)
# The whole-set phase: a real-shaped mirror of every utilization file (all metrics, both clusters, IPMI,
# split files as their pieces) at Kalos's width: 293 nodes × 2 days ≈ 4.9 GB (706 M samples) at scale 1.0;
# nodes and days shrink with --scale. The other files of that mirror are at the sample's scale 0.01 (or the
# harness's --scale when smaller).
WHOLE_SET_DAYS = 2
WHOLE_SET_SAMPLE_SCALE = 0.01
COOKBOOK_REPEATS = 3  # runs of each cookbook query and its lake query; medians


@dataclass(frozen=True)
class Options:
    scale: float
    runs: int
    util_nodes: int
    util_days: int
    gpu_util_days: int
    seed: int
    results_dir: Path
    work_dir: Path | None
    keep_work_dir: bool
    skip: frozenset[str]
    timeout_s: float
    probe_runs: int
    only: frozenset[str] = frozenset()  # --only: these phases and nothing else (not even the main mirror)
    expensive_runs: int = EXPENSIVE_RUNS  # runs of each stage of EXPENSIVE_PHASES

    def runs_of(self, phase: str) -> int:
        """Runs of each stage of ``phase``: ``expensive_runs`` for an expensive phase, else ``runs``."""
        return self.expensive_runs if phase in EXPENSIVE_PHASES else self.runs

    def as_json(self) -> dict[str, object]:
        return {
            "scale": self.scale,
            "runs": self.runs,
            "probe_runs": self.probe_runs,
            "util_nodes": self.util_nodes,
            "util_days": self.util_days,
            "gpu_util_days": self.gpu_util_days,
            "seed": self.seed,
            "skip": sorted(self.skip),
            "only": sorted(self.only),
            "expensive_runs": self.expensive_runs,
            "expensive_phases": list(EXPENSIVE_PHASES),
            "timeout_s": self.timeout_s,
        }


def full_shape_days(scale: float) -> int:
    """Days of the full-shape file: the real two weeks at scale 1.0, at least one."""
    return max(1, round(FULL_SHAPE_DAYS * scale))


def whole_set_days(scale: float) -> int:
    """Days of every utilization file in the whole-set mirror: two at scale 1.0 (~5 GB), at least one."""
    return max(1, round(WHOLE_SET_DAYS * scale))


def default_util_nodes(scale: float) -> int:
    """Kalos's real width at scale 1.0, proportionally narrower below (never under 4 nodes)."""
    return max(MIN_UTIL_NODES, round(KALOS_NODES * scale))


def _skip(value: str) -> frozenset[str]:
    names = frozenset(v.strip() for v in value.split(",") if v.strip())
    unknown = names - set(PHASES)
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown phase(s) {', '.join(sorted(unknown))}; known: {', '.join(PHASES)}"
        )
    return names


def parse_options(argv: list[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.harness",
        description="Benchmark every stage of the warehouse beside DuckDB's bare read and the pandas notebook; "
        "write benchmarks/results/<timestamp>.json, latest.json and latest.md.",
    )
    parser.add_argument("--scale", type=float, default=1.0, help="sample scale (1.0 = the real row counts)")
    parser.add_argument(
        "--runs", type=int, default=3, help="runs per stage; medians are reported (default 3)"
    )
    parser.add_argument(
        "--probe-runs",
        type=int,
        default=None,
        help="runs of each engine stage on the tiny input (default 1: a fixed cost varies little)",
    )
    parser.add_argument(
        "--util-nodes", type=int, default=None,
        help=f"utilization width in nodes (default: {KALOS_NODES} × scale, at least {MIN_UTIL_NODES})",
    )  # fmt: skip
    parser.add_argument(
        "--util-days", type=int, default=1, help="days of every utilization metric (default 1)"
    )
    parser.add_argument(
        "--gpu-util-days", type=int, default=GPU_UTIL_DAYS,
        help=f"days of GPU_UTIL, the most-studied metric (default {GPU_UTIL_DAYS}: a week)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    parser.add_argument(
        "--work-dir", type=Path, default=None, help="scratch folder (default: a new temp dir)"
    )
    parser.add_argument(
        "--keep-work-dir", action="store_true", help="keep the scratch folder (logs, warehouses)"
    )
    parser.add_argument("--skip", type=_skip, default=frozenset(), help=f"comma list of: {', '.join(PHASES)}")
    parser.add_argument(
        "--only", type=_skip, default=frozenset(),
        help="comma list of phases to run alone (every other one skipped, the main mirror not generated; "
        "e.g. --only full_shape)",
    )  # fmt: skip
    parser.add_argument(
        "--expensive-runs", type=int, default=EXPENSIVE_RUNS,
        help=f"runs of the expensive phases ({', '.join(EXPENSIVE_PHASES)}; default {EXPENSIVE_RUNS})",
    )  # fmt: skip
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed per stage run")
    args = parser.parse_args(argv)
    if not 0 < args.scale <= 1.0:
        parser.error("--scale must be in (0, 1]")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.expensive_runs < 1:
        parser.error("--expensive-runs must be at least 1")
    return Options(
        scale=args.scale,
        runs=args.runs,
        util_nodes=args.util_nodes or default_util_nodes(args.scale),
        util_days=args.util_days,
        gpu_util_days=args.gpu_util_days,
        seed=args.seed,
        results_dir=args.results_dir,
        work_dir=args.work_dir,
        keep_work_dir=args.keep_work_dir,
        skip=args.skip | (frozenset(PHASES) - args.only if args.only else frozenset()),
        only=args.only,
        timeout_s=args.timeout,
        probe_runs=args.probe_runs if args.probe_runs is not None else 1,
        expensive_runs=args.expensive_runs,
    )
