"""Ratios between stages, and the targets with pass/miss and by how much (reported, never asserted).

Every ratio is *time of A ÷ time of B* (or memory of A ÷ memory of B) on the median runs of the same
benchmark, so machine noise largely cancels: a ratio is more telling than either absolute.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from benchmarks.options import MEMORY_FACTORS, UPSTREAM_UTILIZATION_BYTES
from benchmarks.summary import StageSummary

FULL_SCALE = 1.0


@dataclass(frozen=True)
class Ratio:
    value: float | None
    numerator: str
    denominator: str
    description: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _attr(stages: Mapping[str, StageSummary], name: str, attr: str) -> float | None:
    stage = stages.get(name)
    return getattr(stage, attr) if stage is not None and stage.ok_runs else None


def _ratio(num: float | None, den: float | None) -> float | None:
    return num / den if num is not None and den else None


def _sum(values: Sequence[float | None]) -> float | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def _time_ratio(stages: Mapping[str, StageSummary], a: str, b: str, attr: str, what: str) -> Ratio:
    value = _ratio(_attr(stages, a, attr), _attr(stages, b, attr))
    return Ratio(value, f"{a}.{attr}", f"{b}.{attr}", what)


REFRESH_PAIRS = (("refresh_load", "load"), ("refresh_validate", "validate"), ("refresh_dbt", "dbt_build"))


def _refresh_pairs(stages: Mapping[str, StageSummary]) -> list[tuple[str, str]]:
    return [(r, f) for r, f in REFRESH_PAIRS if _attr(stages, r, "work_s") and _attr(stages, f, "work_s")]


def refresh_ratio(stages: Mapping[str, StageSummary]) -> Ratio:
    """Refresh work ÷ full-build work, over the stages that ran on both sides (load, validate, dbt)."""
    pairs = _refresh_pairs(stages)
    refresh = _sum([_attr(stages, r, "work_s") for r, _ in pairs]) if pairs else None
    full = _sum([_attr(stages, f, "work_s") for _, f in pairs]) if pairs else None
    return Ratio(
        _ratio(refresh, full),
        " + ".join(f"{r}.work_s" for r, _ in pairs) or "refresh_load.work_s",
        " + ".join(f"{f}.work_s" for _, f in pairs) or "load.work_s",
        "one new BurstGPT day: refresh work ÷ full build work (start-up apart)",
    )


def refresh_ratio_net(stages: Mapping[str, StageSummary]) -> Ratio:
    """The same without each stage's fixed cost (its work on the tiny input): what the data costs."""
    pairs = _refresh_pairs(stages)
    refresh = full = 0.0
    for r, f in pairs:
        fixed = _attr(stages, f, "fixed_s") or 0.0
        refresh += max((_attr(stages, r, "work_s") or 0.0) - fixed, 0.0)
        full += max((_attr(stages, f, "work_s") or 0.0) - fixed, 0.0)
    return Ratio(
        _ratio(refresh, full) if pairs else None,
        " + ".join(f"({r}.work_s − {f}.fixed_s)" for r, f in pairs) or "refresh_load.work_s",
        " + ".join(f"{f}.net_work_s" for _, f in pairs) or "load.net_work_s",
        "the same, each stage's fixed cost (tiny-input work) taken out of both sides",
    )


FULL_SHAPE_READERS = ("full_shape_pyarrow", "full_shape_duckdb")
CORES = 2  # the machine the targets are set for (DESIGN §11)


def _fastest_reader(stages: Mapping[str, StageSummary]) -> str | None:
    timed = [(w, r) for r in FULL_SHAPE_READERS if (w := _attr(stages, r, "work_s")) is not None]
    return min(timed)[1] if timed else None


def _footprint(stages: Mapping[str, StageSummary], name: str) -> dict[str, int] | None:
    """The warehouse's bytes on disk after a dbt build stage (its last ok run): lake, trace.duckdb, snapshot."""
    stage = stages.get(name)
    return stage.ok_runs[-1].detail.get("footprint") if stage is not None and stage.ok_runs else None


def _lake_bytes(stages: Mapping[str, StageSummary]) -> int | None:
    """Lake and DuckDB file bytes of the full-shape warehouse: after its dbt build (the models the build
    keeps in the lake, trace.duckdb), else after its load (raw + rejects, the views)."""
    built = _footprint(stages, "full_shape_dbt")
    if built is not None:
        return built["lake_bytes"] + built["duckdb_bytes"]
    stage = stages.get("full_shape_load")
    if stage is None or not stage.ok_runs:
        return None
    detail = stage.ok_runs[-1].detail
    return sum(f["lake_bytes"] for f in detail["families"].values()) + detail.get("duckdb_bytes", 0)


def _database_share(footprint: Mapping[str, int] | None) -> float | None:
    if not footprint:
        return None
    return _ratio(footprint["duckdb_bytes"] + footprint["snapshot_bytes"], footprint["lake_bytes"])


def full_set_database_share(stages: Mapping[str, StageSummary], csv_bytes: float | None) -> float | None:
    """trace.duckdb + its snapshot ÷ the lake, for the whole upstream set: the database as the scale-1.0
    workload build leaves it (every job and request at full size; the utilization samples stay in the lake,
    only per-series rows reach the database), over that build's lake plus the full-shape file's lake per
    CSV byte times the ~80 GB utilization set."""
    workload, shape = _footprint(stages, "dbt_build"), _footprint(stages, "full_shape_dbt")
    if not workload or not shape or not csv_bytes:
        return None
    return (workload["duckdb_bytes"] + workload["snapshot_bytes"]) / full_set_lake_bytes(
        workload, shape, csv_bytes
    )


def full_set_lake_bytes(workload: Mapping[str, int], shape: Mapping[str, int], csv_bytes: float) -> float:
    """The whole set's lake, estimated: the workload build's plus the full-shape lake per CSV byte × 80 GB."""
    return workload["lake_bytes"] + shape["lake_bytes"] / csv_bytes * UPSTREAM_UTILIZATION_BYTES


def full_shape_ratios(stages: Mapping[str, StageSummary], full_shape: Mapping[str, Any]) -> dict[str, Ratio]:
    fastest = _fastest_reader(stages) or FULL_SHAPE_READERS[0]
    work, size = _attr(stages, "full_shape_load", "work_s"), full_shape.get("bytes")
    minutes = UPSTREAM_UTILIZATION_BYTES / size * work / 60 if work and size else None
    cpu = _attr(stages, "full_shape_load", "cpu_s")
    idle = UPSTREAM_UTILIZATION_BYTES / size * cpu / CORES / 60 if cpu and size else None
    return {
        "full_shape_over_fastest_reader": _time_ratio(
            stages,
            "full_shape_load",
            fastest,
            "work_s",
            "one real-shaped file: project load ÷ fastest bare reader",
        ),
        "full_shape_80gb_minutes": Ratio(
            minutes,
            f"{UPSTREAM_UTILIZATION_BYTES:.0e} B ÷ full_shape.bytes × full_shape_load.work_s",
            "60 s",
            "the ~80 GB utilization set at the full-shape load's speed, minutes (extrapolated)",
        ),
        "full_shape_80gb_minutes_cpu": Ratio(
            idle,
            f"{UPSTREAM_UTILIZATION_BYTES:.0e} B ÷ full_shape.bytes × full_shape_load.cpu_s ÷ {CORES}",
            "60 s",
            "the same from the load's CPU seconds spread on two idle cores (other load on the machine apart)",
        ),
        "full_shape_validate_over_load": _time_ratio(
            stages,
            "full_shape_validate",
            "full_shape_load",
            "work_s",
            "one real-shaped file: validation of its rules ÷ its load, work",
        ),
        "full_shape_lake_share": Ratio(
            _ratio(_lake_bytes(stages), size),
            "lake + trace.duckdb bytes",
            "CSV bytes",
            "one real-shaped file: what the load and the dbt build keep on disk ÷ the CSV",
        ),
        "full_shape_dbt_over_load": _time_ratio(
            stages,
            "full_shape_dbt",
            "full_shape_load",
            "work_s",
            "one real-shaped file: dbt build ÷ its load",
        ),
        "full_shape_database_share": Ratio(
            _database_share(_footprint(stages, "full_shape_dbt")),
            "trace.duckdb + snapshot bytes",
            "lake bytes",
            "one real-shaped file built alone: the database files ÷ the lake (their fixed size dominates)",
        ),
        "full_set_database_share": Ratio(
            full_set_database_share(stages, size),
            "trace.duckdb + snapshot bytes after the workload build",
            f"workload lake + full-shape lake ÷ CSV × {UPSTREAM_UTILIZATION_BYTES:.0e} B",
            "the whole set, estimated: the database files ÷ the lake",
        ),
    }


def full_shape_summary(full_shape: Mapping[str, Any], ratios: Mapping[str, Ratio]) -> dict[str, Any]:
    """The full-shape file and the numbers derived from it (the markdown shows the arithmetic)."""
    if not full_shape:
        return {}
    return {
        **full_shape,
        "upstream_bytes": UPSTREAM_UTILIZATION_BYTES,
        **{k: ratios[k].value for k in ratios if k.startswith(("full_shape_", "full_set_"))},
    }


def _cookbook_worst(stages: Mapping[str, StageSummary]) -> tuple[float | None, str]:
    """The largest warehouse ÷ lake ratio of the cookbook queries, and which query it is."""
    stage = stages.get("whole_set_cookbook")
    queries = stage.ok_runs[-1].detail.get("queries", {}) if stage is not None and stage.ok_runs else {}
    timed = [(q["warehouse_over_lake"], k) for k, q in queries.items() if q.get("warehouse_over_lake")]
    return max(timed) if timed else (None, "")


def whole_set_ratios(stages: Mapping[str, StageSummary], whole_set: Mapping[str, Any]) -> dict[str, Ratio]:
    csv_bytes = whole_set.get("csv_bytes")
    work = _attr(stages, "whole_set_graph", "work_s")
    minutes = UPSTREAM_UTILIZATION_BYTES * work / csv_bytes / 60 if work and csv_bytes else None
    disk = (whole_set.get("disk") or {}).get("total_bytes")
    appended, lines = (whole_set.get("refresh") or {}).get("appended_rows"), whole_set.get("utilization_rows")
    refresh = _attr(stages, "whole_set_refresh", "work_s")
    per_new_line = refresh / appended if refresh and appended else None
    per_line = work / lines if work and lines else None
    worst, query = _cookbook_worst(stages)
    return {
        "whole_set_over_pyarrow": _time_ratio(
            stages, "whole_set_graph", "whole_set_pyarrow", "work_s",
            "every utilization file: the whole graph ÷ pyarrow's bare read of the same files, work",
        ),
        "whole_set_80gb_minutes": Ratio(
            minutes,
            f"{UPSTREAM_UTILIZATION_BYTES:.0e} B × whole_set_graph.work_s ÷ whole_set.csv_bytes",
            "60 s",
            "the ~80 GB utilization set through the whole graph at the whole-set run's speed, minutes",
        ),
        "whole_set_disk_share": Ratio(
            _ratio(disk, csv_bytes),
            "landing + lake + trace.duckdb (+ snapshot) real bytes beside the mirror",
            "the mirror's CSV bytes",
            "every utilization file: what the warehouse keeps on disk ÷ the CSV",
        ),
        "whole_set_refresh_over_graph": _time_ratio(
            stages, "whole_set_refresh", "whole_set_graph", "work_s",
            "one new day in every utilization file: the run after it ÷ the whole graph, work",
        ),
        "whole_set_refresh_per_line": Ratio(
            _ratio(per_new_line, per_line),
            "whole_set_refresh.work_s ÷ the lines appended",
            "whole_set_graph.work_s ÷ the mirror's utilization lines",
            "one new day in every utilization file: the refresh's work per appended line ÷ the whole graph's per "
            "line (1: a refresh costs what its new lines would cost in the whole graph)",
        ),
        "cookbook_worst_over_lake": Ratio(
            worst,
            f"cookbook query {query or '–'} on trace.duckdb (median)",
            "the same question on the lake's Parquet files (median)",
            "the slowest cookbook query relative to its hand-written lake query",
        ),
    }  # fmt: skip


def compute_ratios(
    stages: Mapping[str, StageSummary],
    full_shape: Mapping[str, Any] | None = None,
    whole_set: Mapping[str, Any] | None = None,
) -> dict[str, Ratio]:
    t = _time_ratio
    return (
        full_shape_ratios(stages, full_shape or {})
        | whole_set_ratios(stages, whole_set or {})
        | {
            "load_over_bare_read": t(
                stages, "load", "bare_read", "work_s", "load ÷ DuckDB bare read_csv, work"
            ),
            "load_over_bare_read_wall": t(
                stages, "load", "bare_read", "wall_s", "the same, wall (start-up in)"
            ),
            "pipeline_over_pandas": t(
                stages,
                "pipeline_total",
                "pandas_notebook",
                "work_s",
                "pipeline_total ÷ pandas notebook, work",
            ),
            "pipeline_over_pandas_wall": t(
                stages, "pipeline_total", "pandas_notebook", "wall_s", "the same, wall (start-up in)"
            ),
            "bare_read_over_pandas": t(
                stages,
                "bare_read",
                "pandas_notebook",
                "work_s",
                "the ceiling: DuckDB's bare read alone ÷ the whole pandas notebook, work",
            ),
            "validate_over_load": t(stages, "validate", "load", "work_s", "validation ÷ load, work"),
            "refresh_validate_over_validate": t(
                stages,
                "refresh_validate",
                "validate",
                "work_s",
                "validation after a one-day refresh ÷ the full validation, work",
            ),
            "validate_utilization_over_load": t(
                stages,
                "validate_utilization",
                f"memory_{max(MEMORY_FACTORS):g}x",
                "work_s",
                "validation ÷ load of the largest utilization file, work",
            ),
            "dbt_over_load": t(stages, "dbt_build", "load", "work_s", "dbt build ÷ load, work"),
            "spark_over_duckdb_dbt": t(
                stages, "dbt_build_spark", "dbt_build", "wall_s", "dbt build on Spark ÷ on DuckDB, wall"
            ),
            "spark_over_duckdb_memory": t(
                stages,
                "dbt_build_spark",
                "dbt_build",
                "peak_rss_mb",
                "peak memory (tree, JVM in), Spark ÷ DuckDB",
            ),
            "refresh_over_full": refresh_ratio(stages),
            "refresh_over_full_net": refresh_ratio_net(stages),
            "memory_4x_over_1x": t(
                stages, "memory_4x", "memory_1x", "peak_rss_mb", "peak memory, 4× ÷ 1× of a utilization file"
            ),
            "memory_1x_over_0.25x": t(
                stages, "memory_1x", "memory_0.25x", "peak_rss_mb", "peak memory, 1× ÷ 0.25× of the file"
            ),
        }
    )


@dataclass(frozen=True)
class Target:
    key: str
    description: str
    limit: float  # every target is an upper bound: measured ≤ limit passes
    unit: str
    full_scale_only: bool = False  # an absolute number defined for --scale 1.0


TARGETS = (
    Target("load_throughput", "load ≥ 0.5× DuckDB's bare read throughput: load ÷ bare read ≤ 2", 2.0, "×"),
    Target("pipeline_vs_pandas", "pipeline ≥ 5× faster than pandas: pipeline ÷ pandas ≤ 0.2", 0.2, "×"),
    Target("pipeline_total_time", "jobs + BurstGPT 1–2 loaded, validated, modelled < 60 s", 60.0, "s", True),
    Target("pipeline_total_memory", "… with peak memory < 2 GB", 2048.0, "MiB", True),
    Target("memory_flat", "peak memory flat from 1× to 4× of a utilization file (≤ +25 %)", 1.25, "×"),
    Target("refresh", "one new day's refresh work < 5 % of the full build's work", 0.05, "×"),
    Target("validation_cost", "validation work ≤ 25 % of load work", 0.25, "×"),
    Target("refresh_validation", "a one-day refresh's validation < 5 % of the full validation", 0.05, "×"),
    Target(
        "utilization_validation_time", "a utilization file validates in less time than it loads", 1.0, "×"
    ),
    Target("utilization_validation_memory", "… in bounded memory (< 2 GB)", 2048.0, "MiB"),
    Target("refresh_unchanged", "a refresh with nothing changed upstream < 3 s of work", 3.0, "s", True),
    Target(
        "full_shape_speed", "one real-shaped utilization file: load ÷ fastest bare reader ≤ 2", 2.0, "×", True
    ),
    Target("full_shape_memory", "… its load's peak memory < 4 GB", 4096.0, "MiB", True),
    Target("full_shape_80gb", "the ~80 GB utilization set, extrapolated, < 40 min", 40.0, "min", True),
    Target("full_shape_disk", "… lake + DuckDB files < 20 % of the CSV bytes", 0.2, "×", True),
    Target(
        "full_set_database",
        "trace.duckdb + its snapshot < 1 % of the lake (the whole set, estimated)",
        0.01,
        "×",
        True,
    ),
    Target("full_shape_validation_time", "… its validation takes less time than its load", 1.0, "×", True),
    Target("full_shape_validation_memory", "… in bounded memory (< 2 GB)", 2048.0, "MiB", True),
    Target("whole_set_speed", "every utilization file: whole graph ÷ pyarrow bare read ≤ 3", 3.0, "×", True),
    Target(
        "whole_set_80gb",
        "the ~80 GB utilization set through the whole graph, extrapolated, < 30 min",
        30.0,
        "min",
        True,
    ),
    Target("whole_set_memory", "… the whole graph's peak memory < 4 GB", 4096.0, "MiB", True),
    Target(
        "whole_set_disk", "… disk beside a mirror source (landing + lake + DB) ÷ CSV < 0.25", 0.25, "×", True
    ),
    Target(
        "whole_set_refresh", "one new day in every utilization file: refresh ÷ whole graph < 0.05", 0.05, "×"
    ),
    Target("whole_set_rerun", "a CLI re-run with nothing changed upstream < 3 s of work", 3.0, "s"),
    Target("cookbook_queries", "each cookbook query ≤ 2× its hand-written lake query", 2.0, "×"),
)


# Where each target's measure is read: a ratio, or an attribute of a stage's summary.
MEASURED_BY = {
    "load_throughput": "ratios.load_over_bare_read",
    "pipeline_vs_pandas": "ratios.pipeline_over_pandas",
    "pipeline_total_time": "stages.pipeline_total.wall_s",
    "pipeline_total_memory": "stages.pipeline_total.peak_rss_mb",
    "memory_flat": "ratios.memory_4x_over_1x",
    "refresh": "ratios.refresh_over_full",
    "validation_cost": "ratios.validate_over_load",
    "refresh_validation": "ratios.refresh_validate_over_validate",
    "utilization_validation_time": "ratios.validate_utilization_over_load",
    "utilization_validation_memory": "stages.validate_utilization.peak_rss_mb",
    "refresh_unchanged": "stages.refresh_unchanged.work_s",
    "full_shape_speed": "ratios.full_shape_over_fastest_reader",
    "full_shape_memory": "stages.full_shape_load.peak_rss_mb",
    "full_shape_80gb": "ratios.full_shape_80gb_minutes",
    "full_shape_disk": "ratios.full_shape_lake_share",
    "full_set_database": "ratios.full_set_database_share",
    "full_shape_validation_time": "ratios.full_shape_validate_over_load",
    "full_shape_validation_memory": "stages.full_shape_validate.peak_rss_mb",
    "whole_set_speed": "ratios.whole_set_over_pyarrow",
    "whole_set_80gb": "ratios.whole_set_80gb_minutes",
    "whole_set_memory": "stages.whole_set_graph.peak_rss_mb",
    "whole_set_disk": "ratios.whole_set_disk_share",
    "whole_set_refresh": "ratios.whole_set_refresh_over_graph",
    "whole_set_rerun": "stages.whole_set_rerun.work_s",
    "cookbook_queries": "ratios.cookbook_worst_over_lake",
}


def _measured(
    key: str, stages: Mapping[str, StageSummary], ratios: Mapping[str, Ratio]
) -> tuple[float | None, str]:
    source = MEASURED_BY[key]
    kind, name, *attr = source.split(".")
    value = ratios[name].value if kind == "ratios" else _attr(stages, name, attr[0])
    return value, source


def _fmt(value: float, unit: str) -> str:
    number = f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
    return number if unit == "×" else f"{number} {unit}"


def verdict(measured: float | None, limit: float, unit: str) -> tuple[bool | None, str]:
    if measured is None:
        return None, "not measured"
    if measured <= limit:
        headroom = (limit - measured) / limit * 100
        return True, f"pass: {_fmt(measured, unit)} ≤ {_fmt(limit, unit)} ({headroom:.0f} % headroom)"
    over = (measured - limit) / limit * 100
    return (
        False,
        f"miss: {_fmt(measured, unit)} > {_fmt(limit, unit)} (over by {over:.0f} %, {measured / limit:.2f}× the limit)",
    )


# Targets whose ratio's terms name no stage: the stages their measure comes from.
STAGES_BEHIND = {
    "full_shape_disk": ("full_shape_load", "full_shape_dbt"),
    "full_set_database": ("dbt_build", "full_shape_dbt"),
    "whole_set_disk": ("whole_set_graph",),
    "cookbook_queries": ("whole_set_cookbook",),
}


def _stages_behind(key: str, stages: Mapping[str, StageSummary], ratios: Mapping[str, Ratio]) -> list[str]:
    """The stages a target's measure is computed from (named in its basis or its ratio's terms)."""
    if key in STAGES_BEHIND:
        return list(STAGES_BEHIND[key])
    kind, name, *_ = MEASURED_BY[key].split(".")
    if kind == "stages":
        return [name]
    ratio = ratios[name]
    words = re.findall(r"[a-z0-9_.]+", f"{ratio.numerator} {ratio.denominator}")
    return list(dict.fromkeys(w.split(".")[0] for w in words if w.split(".")[0] in stages))


def why_not_measured(key: str, stages: Mapping[str, StageSummary], ratios: Mapping[str, Ratio]) -> str:
    """Why a target has no measure: the first stage behind it that did not run ok, with its reason."""
    for name in _stages_behind(key, stages, ratios):
        stage = stages[name]
        if not stage.ok_runs:
            return f"`{name}` {stage.status}" + (f": {stage.note}" if stage.note else "")
    return "its stages ran, but the measure could not be computed from them"


def evaluate_targets(
    stages: Mapping[str, StageSummary], ratios: Mapping[str, Ratio], scale: float
) -> list[dict[str, Any]]:
    out = []
    for target in TARGETS:
        measured, basis = _measured(target.key, stages, ratios)
        passed, text = verdict(measured, target.limit, target.unit)
        if measured is None:
            text += f" — {why_not_measured(target.key, stages, ratios)}"
        if target.full_scale_only and scale < FULL_SCALE and measured is not None:
            text += f" — defined at scale 1.0, measured at {scale:g}"
        out.append(
            {
                "key": target.key,
                "description": target.description,
                "limit": target.limit,
                "unit": target.unit,
                "measured": measured,
                "basis": basis,
                "passed": passed,
                "applies": not (target.full_scale_only and scale < FULL_SCALE),
                "verdict": text,
            }
        )
    return out
