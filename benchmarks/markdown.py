"""``latest.md``: the results document as markdown tables — targets, stages, ratios, refresh, memory,
calibration. Absolutes are medians over runs; ratios beside them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmarks.options import UPSTREAM_UTILIZATION_BYTES as UPSTREAM_BYTES
from benchmarks.targets import full_set_lake_bytes

MB = 1024 * 1024


def _num(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, float):
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.{digits}f}"
    return str(value)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> list[str]:
    spec = align or "l" + "r" * (len(header) - 1)
    marks = ["---:" if a == "r" else "---" for a in spec]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return [*out, ""]


def _targets(doc: dict[str, Any]) -> list[str]:
    rows = []
    for t in doc["targets"]:
        mark = {True: "pass", False: "**miss**", None: "–"}[t["passed"]]
        rows.append([t["description"], mark, t["verdict"]])
    return [
        "## Targets (reported, never asserted)",
        "",
        *_table(["target", "result", "by how much"], rows, "lll"),
    ]


def _stages(doc: dict[str, Any]) -> list[str]:
    rows = []
    for name, s in doc["stages"].items():
        size = s["bytes"] / MB if s["bytes"] is not None else None
        rows.append(
            [f"`{name}`", s["status"], _num(s["wall_s"]), _num(s["startup_s"]), _num(s["work_s"]),
             _num(s["fixed_s"]), _num(s["rows"]), _num(s["rows_per_s"], 0), _num(size, 1), _num(s["mb_per_s"], 1),
             _num(s["peak_rss_mb"], 0)]
        )  # fmt: skip
    header = ["stage", "status", "wall s", "start-up s", "work s", "fixed s", "rows", "rows/s", "MiB in",
              "MiB/s", "peak RSS MiB"]  # fmt: skip
    runs = doc["options"]["runs"]
    intro = [
        f"## Stages (median of {runs} run(s))",
        "",
        "wall = process start → exit; start-up = start → ready (interpreter, imports, definitions); work = "
        "ready → done; fixed = work of the same stage on the tiny input (engine start inside the work: Dagster "
        "run, dbt parse, GX context). rows/s and MiB/s are over work.",
        "",
    ]
    notes = [f"- `{n}`: {s['note']}" for n, s in doc["stages"].items() if s["status"] != "ok" and s["note"]]
    return (
        intro
        + _table(header, rows, "ll" + "r" * 9)
        + (["Not run or not ok:", "", *notes, ""] if notes else [])
    )


def _ratios(doc: dict[str, Any]) -> list[str]:
    rows = [[f"`{k}`", _num(r["value"], 3), r["description"], f"{r['numerator']} ÷ {r['denominator']}"]
            for k, r in doc["ratios"].items()]  # fmt: skip
    table = _table(["ratio", "value", "what", "computed as"], rows, "lrll")
    return ["## Ratios (time or memory of A ÷ B)", "", *table]


def _refresh(doc: dict[str, Any]) -> list[str]:
    r = doc["refresh"]
    if not r:
        return []
    detail = doc["stages"]["refresh_load"]["detail"]
    return [
        "## Refresh: one new BurstGPT day",
        "",
        f"`{r.get('file')}` + {r.get('appended_rows', 0):,} rows (day index {r.get('new_day_index')}); "
        f"partitions written: {detail.get('partitions_written', '–')}, unchanged: "
        f"{detail.get('partitions_unchanged', '–')}; refresh ÷ full build: "
        f"{_num(doc['ratios']['refresh_over_full']['value'], 3)}.",
        "",
    ]


def _memory(doc: dict[str, Any]) -> list[str]:
    m = doc["memory_vs_size"]
    if not m.get("sizes"):
        return []
    base = (m["sizes"].get("1x") or {}).get("peak_rss_mb")
    rows = []
    for label, s in m["sizes"].items():
        rel = s["peak_rss_mb"] / base if base and s["peak_rss_mb"] else None
        rows.append([label, _num(s["bytes"] / MB, 1), _num(s["rows"]), _num(s["peak_rss_mb"], 0), _num(rel, 2),
                     _num(s["work_s"])])  # fmt: skip
    table = _table(["size", "MiB", "rows", "peak RSS MiB", "÷ 1×", "work s"], rows)
    return [f"## Memory against input size (`{m['file']}`)", "", *table]


def _share_or_value(value: float | None, unit: str, diff: bool = False) -> str:
    if value is None:
        return "–"
    if unit == "share":
        return f"{value * 100:+.2f} pp" if diff else f"{value * 100:.2f} %"
    return f"{value:+,.2f}" if diff else _num(value)


def _calibration(doc: dict[str, Any]) -> list[str]:
    c = doc["calibration"]
    if not c.get("rows"):
        return [
            "## Calibration",
            "",
            f"not produced: {c.get('error', 'the calibration phase did not run')}",
            "",
        ]
    rows = []
    for r in c["rows"]:
        mark = {True: "pass", False: "**miss**", None: "–"}[r["passed"]]
        rows.append([r["label"], _share_or_value(r["published"], r["unit"]), _share_or_value(r["generated"], r["unit"]),
                     _share_or_value(r["difference"], r["unit"], diff=True), r["tolerance"], mark, r["source"]])  # fmt: skip
    head = [
        "## Calibration: published vs generated",
        "",
        f"Generated values are SQL on the built warehouse: {c['source']}; scale {c['scale']:g}; counts marked "
        f"÷ scale are divided by it. {c['passed']} pass, {c['failed']} miss, {c['not_measured']} not measured.",
        "",
    ]
    errors = [f"- {q}: {e}" for q, e in c.get("query_errors", {}).items()]
    table = _table(
        ["number", "published", "generated", "difference", "tolerance", "result", "source"], rows, "lrrrlll"
    )
    return head + table + (["Queries that failed:", "", *errors, ""] if errors else [])


def _full_shape(doc: dict[str, Any]) -> list[str]:
    f = doc.get("full_shape") or {}
    if not f:
        return []
    stages = doc["stages"]
    load = stages["full_shape_load"]
    others = [
        (n, stages[n])
        for n in ("full_shape_validate", "full_shape_dbt", "full_shape_pyarrow", "full_shape_duckdb")
        if n in stages
    ]
    rows = [
        [
            f"`{n}`",
            s["status"],
            _num(s["work_s"]),
            _num(s.get("cpu_s")),
            _num(s["mb_per_s"], 1),
            _num(s["peak_rss_mb"], 0),
        ]
        for n, s in [("full_shape_load", load), *others]
    ]
    mb_s = (f["bytes"] / 1e6 / load["work_s"]) if load["work_s"] else None
    arithmetic = (
        f"{f['upstream_bytes'] / 1e9:.0f} GB ÷ {mb_s:.1f} MB/s = {f['upstream_bytes'] / 1e6 / mb_s:,.0f} s = "
        f"**{f['full_shape_80gb_minutes']:.1f} min**"
        if mb_s
        else "not measured"
    )
    parsers = ", ".join(
        p for fam in (load.get("detail") or {}).get("families", {}).values() for p in fam.get("parsers", [])
    )
    return [
        "## Full shape: one real-shaped utilization file",
        "",
        f"`{f['file']}` (SYNTHETIC; the real shape at scale 1.0): {f['bytes']:,} bytes, {f['lines']:,} lines (header included) × {f['columns']:,} "
        f"columns ({f['nodes']} nodes × 8 GPUs + Time, {f['days']} days of 15-s samples). Loader path: "
        f"{parsers or '–'}.",
        "",
        *_table(["stage", "status", "work s", "CPU s", "MiB/s", "peak RSS MiB"], rows),
        f"- project ÷ fastest bare reader (work): **{_num(f.get('full_shape_over_fastest_reader'), 2)}**",
        f"- lake + trace.duckdb ÷ CSV bytes (after the dbt build): **{_num(f.get('full_shape_lake_share'), 3)}**",
        f"- dbt build ÷ load (work): **{_num(f.get('full_shape_dbt_over_load'), 2)}**",
        *_footprint_lines(doc),
        f"- the ~80 GB set at this speed, one file after another: {arithmetic}",
        f"- the same from the load's CPU time on two otherwise idle cores ({_num(load.get('cpu_s'))} CPU s ÷ 2 "
        f"per file): **{_num(f.get('full_shape_80gb_minutes_cpu'), 1)} min** (load average at the end of the "
        f"run: {', '.join(f'{x:.1f}' for x in doc['host']['load_average_at_end'])})",
        "",
    ]


def _mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def _footprint_lines(doc: dict[str, Any]) -> list[str]:
    """The database files beside the lake: the full-shape build's, and the whole set's estimate."""
    f, stages = doc["full_shape"], doc["stages"]

    def footprint(name: str) -> dict[str, int] | None:
        return ((stages.get(name) or {}).get("detail") or {}).get("footprint")

    shape, workload = footprint("full_shape_dbt"), footprint("dbt_build")
    if not shape:
        return []
    lines = [
        f"- after its dbt build: lake {_mb(shape['lake_bytes'])} (dbt models {_mb(shape['lake_model_bytes'])}), "
        f"trace.duckdb {_mb(shape['duckdb_bytes'])}, snapshot {_mb(shape['snapshot_bytes'])}: database ÷ lake "
        f"**{_num(f.get('full_shape_database_share'), 3)}** (the database's fixed part over one file's lake)"
    ]
    if workload:
        per_csv = shape["lake_bytes"] / f["bytes"]
        lake = full_set_lake_bytes(workload, shape, f["bytes"])
        lines.append(
            f"- the whole set, estimated: (trace.duckdb {_mb(workload['duckdb_bytes'])} + snapshot "
            f"{_mb(workload['snapshot_bytes'])} after the scale-1 workload build) ÷ (its lake "
            f"{_mb(workload['lake_bytes'])} + {per_csv:.3f} × {f['upstream_bytes'] / 1e9:.0f} GB of utilization "
            f"CSV = {_mb(lake)}) = **{_num(f.get('full_set_database_share'), 4)}**"
        )
    else:
        lines.append("- the whole set's database ÷ lake: needs the workload's dbt build in the same run")
    return lines


def render_markdown(doc: dict[str, Any]) -> str:
    o, h = doc["options"], doc["host"]
    head = [
        "# Benchmark results",
        "",
        f"{doc['generated_at']} · scale {o['scale']:g} · {o['runs']} run(s) per stage, "
        f"{o.get('expensive_runs', o['runs'])} of the expensive phases ({', '.join(o.get('expensive_phases', []))}) · utilization "
        f"{o['util_nodes']} nodes × {o['util_days']} day(s), GPU_UTIL {o.get('gpu_util_days', o['util_days'])} day(s) · {h['cpus']} CPUs, "
        f"{_num(h['mem_total_mb'], 0)} MiB · load average at end {', '.join(f'{x:.2f}' for x in h['load_average_at_end'])} "
        f"· commit {h['git_commit']}{' (dirty)' if h['git_dirty'] else ''} · {_num(doc['duration_s'], 0)} s in all",
        "",
        f"Workload (jobs + BurstGPT 1–2): {_num(doc['inputs'].get('workload_rows'))} rows, "
        f"{_num((doc['inputs'].get('workload_bytes') or 0) / MB, 1)} MiB. Stages that ran: "
        f"{', '.join(doc['stages_ran']) or 'none'}.",
        "",
    ]
    parts = [
        head,
        _targets(doc),
        _whole_set(doc),
        _full_shape(doc),
        _stages(doc),
        _ratios(doc),
        _refresh(doc),
        _memory(doc),
    ]
    parts.append(_calibration(doc))
    return "\n".join(line for part in parts for line in part).rstrip() + "\n"


def _whole_set_stages(stages: dict[str, Any]) -> list[str]:
    rows = []
    for name in ("whole_set_graph", "whole_set_rerun", "whole_set_refresh", "whole_set_pyarrow"):
        s = stages.get(name) or {}
        rows.append([f"`{name}`", s.get("status", "–"), _num(s.get("wall_s")), _num(s.get("work_s")),
                     _num(s.get("cpu_s")), _num(s.get("peak_rss_mb"), 0)])  # fmt: skip
    return _table(["stage", "status", "wall s", "work s", "CPU s", "peak RSS MiB"], rows, "llrrrr")


def _whole_set_layers(detail: dict[str, Any]) -> list[str]:
    layers = detail.get("layers") or {}
    if not layers:
        return ["Time per layer: not available (the whole graph did not run).", ""]
    total = sum(layers.values())
    rows = [[name, _num(s, 1), f"{s / total * 100:.0f} %" if total else "–"] for name, s in layers.items()]
    runs = detail.get("dagster_runs") or []
    return [
        f"Time per layer (step seconds from Dagster's event log; dbt's step split by folder from "
        f"`{detail.get('run_results') or 'run_results.json'}`; {len(runs)} Dagster run(s) "
        f"launched by the command, {_num(detail.get('dagster_run_s'), 1)} s start to end, summed):",
        "",
        *_table(["layer", "seconds", "share"], rows, "lrr"),
        "Slowest nodes:",
        "",
        *_table(
            ["node", "layer", "seconds"],
            [[f"`{n['node']}`", n["layer"], _num(n["seconds"], 1)] for n in detail.get("slowest", [])],
            "llr",
        ),
    ]


def _cookbook(stage: dict[str, Any]) -> list[str]:
    queries = (stage.get("detail") or {}).get("queries") or {}
    if not queries:
        return [f"Cookbook queries: {stage.get('status', 'not run')} {stage.get('note', '')}".rstrip(), ""]
    rows = [[f"`{k}`", q["question"], _num(q["warehouse_s"], 3), _num(q["lake_s"], 3),
             _num(q["warehouse_over_lake"], 2)] for k, q in queries.items()]  # fmt: skip
    repeats = next(iter(queries.values()))["repeats"]
    return [
        f"Cookbook queries (`benchmarks/cookbook_queries.py`; medians of {repeats} runs each, alternating, in "
        "one process): `trace.duckdb` read-only vs the same question on the lake's Parquet files.",
        "",
        *_table(["query", "question", "warehouse s", "lake s", "÷ lake"], rows, "llrrr"),
    ]


def _appended_share(whole_set: dict[str, Any]) -> float | None:
    """The lines the whole set's refresh appended ÷ the utilization lines the whole graph read."""
    appended, lines = (whole_set.get("refresh") or {}).get("appended_rows"), whole_set.get("utilization_rows")
    return appended / lines if appended and lines else None


def _whole_set(doc: dict[str, Any]) -> list[str]:
    w = doc.get("whole_set") or {}
    if not w:
        return []
    stages, ratios = doc["stages"], doc["ratios"]
    graph = stages.get("whole_set_graph") or {}
    disk = w.get("disk") or {}
    work, csv = graph.get("work_s"), w["csv_bytes"]
    arithmetic = (
        f"{UPSTREAM_BYTES / 1e9:.0f} GB × {work:,.1f} s ÷ {csv / 1e9:,.3f} GB = {UPSTREAM_BYTES * work / csv:,.0f} s "
        f"= **{UPSTREAM_BYTES * work / csv / 60:,.1f} min**"
        if work and csv
        else "not measured"
    )
    refresh = w.get("refresh") or {}
    disk_line = (
        f"landing {_mb(disk['landing_bytes'])} + lake {_mb(disk['lake_bytes'])} + trace.duckdb and snapshot "
        f"{_mb(disk['duckdb_bytes'])} = {_mb(disk['total_bytes'])} ÷ {_mb(csv)} of CSV = "
        f"**{_num(ratios['whole_set_disk_share']['value'], 3)}**"
        if disk
        else "not measured"
    )
    return [
        "## Whole set: every utilization file through the whole graph",
        "",
        f"Mirror (SYNTHETIC, real shape): {w['utilization_files']} utilization files ({w['nodes']} nodes × "
        f"{w['days']} day(s), every metric, both clusters, IPMI, split metrics as pieces), "
        f"{_mb(w['utilization_bytes'])}, {w['utilization_rows']:,} lines; {w['csv_files']} CSV files, "
        f"{_mb(csv)} in all (the other files at scale {w['sample_scale']:g}). Command: `trace-warehouse run "
        "--source mirror --mirror M` on a new warehouse; then again with nothing changed; then after "
        f"one new day in every utilization file ({refresh.get('files_appended', '–')} files, "
        f"{_num(refresh.get('appended_rows'))} rows).",
        "",
        *_whole_set_stages(stages),
        f"- whole graph ÷ pyarrow bare read (work): **{_num(ratios['whole_set_over_pyarrow']['value'], 2)}**",
        f"- the ~80 GB set at this speed: {arithmetic}",
        f"- disk beside the mirror (real bytes, a hard link to the mirror counted once): {disk_line}",
        f"- refresh ÷ whole graph (work): **{_num(ratios['whole_set_refresh_over_graph']['value'], 3)}**; "
        f"re-run with nothing changed: {_num((stages.get('whole_set_rerun') or {}).get('work_s'))} s of work",
        f"- the refresh's work per appended line ÷ the whole graph's per line: "
        f"**{_num((ratios.get('whole_set_refresh_per_line') or {}).get('value'), 2)}**; the appended lines are "
        f"{_num(_appended_share(w), 2)}× the lines the whole graph read, which is refresh ÷ whole graph when a "
        "refresh's line costs what the graph's does",
        "",
        *_whole_set_layers(graph.get("detail") or {}),
        *_cookbook(stages.get("whole_set_cookbook") or {}),
    ]
