"""``python -m benchmarks.harness [--scale 1.0] [--runs 3]``: every benchmark on one commit (see README.md).

Order: generate the mirror (measured) and a tiny one (the fixed-cost probe input); fetch over HTTP; the
build stages on the workload (load → validate → dbt build → report, each run on a reset warehouse); the
utilization load; ``pipeline_total`` (the in-process Dagster graph); the baselines; a one-day refresh; memory
against input size; the calibration table; one real-shaped utilization file (full shape); every utilization
file through ``trace-warehouse run`` (whole set, ``benchmarks/whole_set.py``). Each measured thing is a
separate process (``python -m benchmarks.stage``). Results go to ``--results-dir``: ``latest.json``,
``latest.md`` and ``history/<timestamp>-<commit>.json``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import inputs, warehouses, whole_set, workload
from benchmarks.options import (
    FULL_SHAPE_FILE,
    MEMORY_FACTORS,
    PHASE_STAGES,
    TINY_SCALE,
    Options,
    default_util_nodes,
    full_shape_days,
    parse_options,
)
from benchmarks.runner import RunRecord, StageRunner
from benchmarks.summary import StageSummary
from pipelines.families.upstream import UpstreamFile

STAGE_DESCRIPTIONS = {
    "generate": "the synthetic mirror at --scale (every file, utilization by --util-nodes/--util-days)",
    "fetch": "workload files over HTTP on 127.0.0.1 (remote mode against the served mirror)",
    "load": "raw load of the workload: jobs + BurstGPT 1–2 → Parquet lake + raw views",
    "load_utilization": "raw load of every utilization file (wide → long)",
    "validate": "GX validation of the workload families (asset-check code path)",
    "dbt_build": "dbt build of the whole project over the workload",
    "dbt_build_spark": "the same dbt build on the Spark target (local session; JVM in the process tree)",
    "report": "report assets (figures, report page) via Dagster",
    "pipeline_total": "workload loaded, validated and modelled by the in-process Dagster graph",
    "bare_read": "baseline: DuckDB create table as select * from read_csv, same files",
    "pandas_notebook": "baseline: the upstream notebook's pandas analysis of the same files",
    "refresh_load": "one new BurstGPT day appended to BurstGPT_2: land + raw load (changed partitions only)",
    "refresh_validate": "validation after the refresh (only what changed is validated again)",
    "refresh_dbt": "dbt build after the refresh (the changed family's lineage, only the changed partitions)",
    "refresh_unchanged": "a refresh with nothing changed upstream: land, load, validate, the dbt decision",
    **{
        f"memory_{f:g}x": f"one Kalos utilization file (full width) at {f:g}× (peak memory)"
        for f in MEMORY_FACTORS
    },
    "validate_utilization": f"GX validation of that file at {max(MEMORY_FACTORS):g}× (its rules in DuckDB)",
    "calibration_load": "raw load for the calibration (jobs, BurstGPT 1–3, GPU_UTIL and node CPU)",
    "calibration_dbt": "dbt build (no tests) of the marts the calibration reads, their parents and seeds",
    "full_shape_generate": "the generator writing one real-shaped Kalos GPU_UTIL (293 nodes × 8 GPUs, 14 days)",
    "full_shape_load": "raw load of that one file (acme__gpu_metrics: wide → long Parquet lake + views)",
    "full_shape_validate": "validation of that file's rules (GX on DuckDB over its lake partitions)",
    "full_shape_dbt": "dbt build of the whole project over that file (its lake models, views, marts, tests)",
    "full_shape_pyarrow": "bare reader: pyarrow csv.read_csv of the same file (types inferred, multi-threaded)",
    "full_shape_duckdb": "bare reader: DuckDB create table as select * from read_csv of the same file",
    "whole_set_generate": "the generator writing a real-shaped mirror of every utilization file (~5 GB)",
    "whole_set_graph": "trace-warehouse run --source mirror over that mirror: the whole graph, new warehouse",
    "whole_set_rerun": "the same command again with nothing changed upstream",
    "whole_set_refresh": "the same command after one new day was appended to every utilization file",
    "whole_set_pyarrow": "bare reader: pyarrow csv.read_csv of the same CSV files, one after another",
    "whole_set_cookbook": "five cookbook queries on trace.duckdb beside the same questions on the lake",
}
CALIBRATION_DUCKDB_MEMORY = "8GB"
BUILD_STAGES = ("load", "validate", "dbt_build", "dbt_build_spark", "report")


def say(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Benchmark:
    """One harness run: the work folder, its inputs, and every stage's summary."""

    def __init__(self, options: Options, work_dir: Path) -> None:
        self.options = options
        self.work = work_dir
        self.runner = StageRunner(work_dir, options.timeout_s)
        self.stages: dict[str, StageSummary] = {n: StageSummary(n, d) for n, d in STAGE_DESCRIPTIONS.items()}
        self.mirror = work_dir / "mirror"
        self.tiny_mirror = work_dir / "tiny-mirror"
        self.inputs: dict[str, Any] = {}
        self.calibration: dict[str, Any] = {}
        self.memory: dict[str, Any] = {}
        self.refresh: dict[str, Any] = {}
        self.full_shape: dict[str, Any] = {}
        self.whole_set: dict[str, Any] = {}

    # helpers ------------------------------------------------------------------------------------------
    def _record(self, key: str, record: RunRecord, probe: bool = False) -> RunRecord:
        (self.stages[key].probes if probe else self.stages[key].runs).append(record)
        state = f"{record.status} wall {record.wall_s:.1f}s"
        if record.work_s is not None:
            state += f", work {record.work_s:.2f}s, peak {record.peak_rss_mb:.0f} MiB"
        say(f"{key}{' (probe)' if probe else ''}: {state}" + (f" — {record.error}" if record.error else ""))
        return record

    def record_run(self, key: str, record: RunRecord) -> RunRecord:
        """Add ``record`` to stage ``key``'s runs (and say how it went)."""
        return self._record(key, record)

    def _skipped(self, phase: str) -> bool:
        return phase in self.options.skip

    def _mark_skipped(self, keys: tuple[str, ...], why: str) -> None:
        for key in keys:
            if not self.stages[key].runs:
                self.stages[key].skipped = why

    def _unavailable(self, key: str) -> bool:
        return self.stages[key].status in ("unavailable", "failed")

    # phases -------------------------------------------------------------------------------------------
    def generate(self) -> None:
        o = self.options
        params = {"scale": o.scale, "util_nodes": o.util_nodes, "util_days": o.util_days,
                  "gpu_util_days": o.gpu_util_days, "seed": o.seed}  # fmt: skip
        for i in range(o.runs_of("generate")):
            out = self.mirror if i == 0 else self.work / f"mirror-run{i + 1}"
            rec = self._record("generate", self.runner.run("generate", {**params, "out": str(out)}, {}))
            if out != self.mirror:
                warehouses.remove(out)
            if not rec.ok and i == 0:
                raise RuntimeError(f"the mirror could not be generated: {rec.error}")
        if o.probe_runs > 0:
            tiny = {"scale": TINY_SCALE, "util_nodes": 2, "util_days": 1, "seed": o.seed}
            rec = self.runner.run(
                "generate", {**tiny, "out": str(self.tiny_mirror)}, {}, label="generate-tiny"
            )
            if not rec.ok:
                raise RuntimeError(f"the tiny mirror could not be generated: {rec.error}")
        self._count_inputs()

    def _count_inputs(self) -> None:
        files = [
            {
                "mirror_path": path.relative_to(self.mirror).as_posix(),
                "bytes": path.stat().st_size,
                "rows": inputs.count_lines(path),
            }
            for path in sorted(p for p in self.mirror.rglob("*.csv") if p.is_file())
        ]
        total_rows = sum(f["rows"] for f in files)
        for run in self.stages["generate"].runs:
            run.rows = total_rows
        wanted = {f.mirror_path for f in workload.workload_files()}
        chosen = [f for f in files if f["mirror_path"] in wanted]
        self.inputs = {
            "mirror_files": len(files),
            "mirror_bytes": sum(f["bytes"] for f in files),
            "mirror_rows": total_rows,
            "workload": chosen,
            "workload_rows": sum(f["rows"] for f in chosen),
            "workload_bytes": sum(f["bytes"] for f in chosen),
        }
        say(
            f"mirror: {len(files)} files, {total_rows:,} rows; workload {self.inputs['workload_rows']:,} rows"
        )

    def fetch(self) -> None:
        from tests.support.mirror_server import MirrorServer

        files = [f.mirror_path for f in workload.workload_files()]
        with MirrorServer(self.mirror) as server:
            for i in range(self.options.runs):
                wh = self.work / f"fetch-{i + 1}"
                warehouses.remove(wh)
                env = warehouses.warehouse_env(wh) | server.env()
                rec = self.runner.run("fetch", {"files": files}, env)
                rec.rows = self.inputs.get("workload_rows")
                self._record("fetch", rec)
                warehouses.remove(wh)

    def _build_run(self, wh: Path, mirror: Path, probe: bool, index: int = 0) -> None:
        """One pass of load → validate → dbt build → report on a reset warehouse (the Spark build only in
        the first ``--expensive-runs`` passes)."""
        warehouses.reset(wh)
        env = warehouses.warehouse_env(wh, mirror)
        families = {"families": list(workload.WORKLOAD_FAMILIES)}
        params: dict[str, dict[str, Any]] = {
            "load": families,
            "validate": families,
            "dbt_build": {**families, "work_dir": str(self.work / "dbt")},
            "dbt_build_spark": {**families, "work_dir": str(self.work / "dbt-spark"), "engine": "spark"},
            "report": families,
        }
        for key in BUILD_STAGES:
            if key != "load" and (self._skipped(key) or self._unavailable(key)):
                continue
            if index >= self.options.runs_of(key):
                continue
            rec = self._record(key, self.runner.run(key, params[key], env), probe)
            if key == "load" and not rec.ok:
                return

    def build(self, wh: Path, tiny: Path) -> None:
        files = workload.workload_files()
        warehouses.land(wh, self.mirror, files)
        for i in range(self.options.runs):
            self._build_run(wh, self.mirror, probe=False, index=i)
        if self.options.probe_runs > 0:
            warehouses.land(tiny, self.tiny_mirror, files)
        for i in range(self.options.probe_runs):
            self._build_run(tiny, self.tiny_mirror, probe=True, index=i)
        for key in ("validate", "dbt_build", "dbt_build_spark", "report"):
            if self._skipped(key):
                self._mark_skipped((key,), "--skip")

    def _landed_from_listing(self, name: str, files: Callable[[list[str]], list[UpstreamFile]]) -> Path:
        """A fresh warehouse ``<work>/wh-<name>`` with ``files(<the mirror's utilization listing>)`` landed."""
        wh = self.work / f"wh-{name}"
        warehouses.remove(wh)
        warehouses.land(wh, self.mirror, files(warehouses.mirror_listing(self.mirror)))
        return wh

    def load_utilization(self) -> None:
        wh = self._landed_from_listing("utilization", workload.utilization_files)
        params = {"families": list(workload.UTILIZATION_FAMILIES)}
        for _ in range(self.options.runs_of("load_utilization")):
            warehouses.reset(wh)
            self._record("load_utilization", self.runner.run("load", params, warehouses.warehouse_env(wh)))
        warehouses.remove(wh)

    def pipeline_total(self, wh: Path, tiny: Path) -> None:
        params = {"families": list(workload.WORKLOAD_FAMILIES)}
        for target, mirror, probe, n in ((wh, self.mirror, False, self.options.runs),
                                         (tiny, self.tiny_mirror, True, self.options.probe_runs)):  # fmt: skip
            for _ in range(n):
                warehouses.reset(target)
                env = warehouses.warehouse_env(target, mirror)
                self._record("pipeline_total", self.runner.run("pipeline", params, env), probe)

    def baselines(self, wh: Path) -> None:
        files = workload.workload_files()
        paths = warehouses.landed_paths(wh, files)
        by_path = dict(zip((f.mirror_path for f in files), paths, strict=True))
        jobs = {f.cluster: str(by_path[f.mirror_path]) for f in files if f.family in workload.JOB_FAMILIES}
        requests = [str(by_path[f.mirror_path]) for f in files if f.family == workload.REQUESTS_FAMILY]
        for _ in range(self.options.runs):
            self._record("bare_read", self.runner.run("bare_read", {"paths": [str(p) for p in paths]}, {}))
        for _ in range(self.options.runs):
            params = {"jobs": jobs, "requests": requests}
            self._record("pandas_notebook", self.runner.run("pandas_notebook", params, {}))

    def refresh_phase(self) -> None:
        changed = workload.appended_file()
        grown = self.work / "appended" / changed.file_name
        self.refresh = inputs.append_day(self.mirror / changed.mirror_path, grown)
        self.refresh |= {"file": changed.mirror_path, "base_work_s": []}
        mirror = self.work / "mirror-refresh"
        for i in range(self.options.runs):
            wh = self.work / f"wh-refresh-{i + 1}"
            for folder in (wh, mirror):
                warehouses.remove(folder)
            inputs.linked_mirror(self.mirror, mirror)
            warehouses.land(wh, mirror, workload.workload_files())
            try:
                self._refresh_run(wh, mirror, changed.mirror_path, grown)
            finally:
                warehouses.remove(wh)
        warehouses.remove(mirror)
        for key, build in (("refresh_validate", "validate"), ("refresh_dbt", "dbt_build")):
            if not self.stages[key].runs:
                self.stages[key].skipped = f"{build} did not run ({self.stages[build].status})"

    def _refresh_stages(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(result key, stage, params) of a build: load, then validation and dbt when they run."""
        families = {"families": list(workload.WORKLOAD_FAMILIES)}
        steps: list[tuple[str, str, dict[str, Any]]] = [("refresh_load", "load", families)]
        if not self._skipped("validate") and not self._unavailable("validate"):
            steps.append(("refresh_validate", "validate", families))
        if not self._skipped("dbt_build") and not self._unavailable("dbt_build"):
            steps.append(("refresh_dbt", "dbt_build", {**families, "work_dir": str(self.work / "dbt")}))
        return steps

    def _refresh_run(self, wh: Path, mirror: Path, changed: str, grown: Path) -> None:
        """The full build (set-up, not measured); ``changed`` replaced in the mirror by ``grown``; the
        refresh (measured)."""
        env = warehouses.warehouse_env(wh, mirror)
        base_work = 0.0
        for key, stage, params in self._refresh_stages():
            base = self.runner.run(stage, params, env, f"{stage}-base")
            if not base.ok:  # the refresh cannot be measured without its full build: say why
                self._record(key, base)
                return
            base_work += base.work_s or 0.0
        self.refresh["base_work_s"].append(base_work)
        inputs.replace_file(mirror, changed, grown)
        files = [f.mirror_path for f in workload.workload_files()]
        for key, stage, params in self._refresh_stages():
            if key == "refresh_load":
                stage, params = "refresh", {**params, "files": files}
            elif key == "refresh_dbt":  # as the Dagster dbt asset: only the partitions the load changed
                params = {**params, "incremental": True}
            if not self._record(key, self.runner.run(stage, params, env)).ok:
                return
        # and once more, now that nothing changed upstream: what the daily refresh does then
        steps = {key for key, _, _ in self._refresh_stages()}
        unchanged = {
            "families": list(workload.WORKLOAD_FAMILIES),
            "files": files,
            "dbt": "refresh_dbt" in steps,
        }
        self._record("refresh_unchanged", self.runner.run("refresh_unchanged", unchanged, env))

    def memory_phase(self) -> None:
        listing = warehouses.mirror_listing(self.mirror)
        upstream = workload.memory_file(listing)
        sizes = inputs.grown_copies(
            self.mirror / upstream.mirror_path, self.work / "util-sizes", MEMORY_FACTORS
        )
        self.memory = {"file": upstream.mirror_path, "sizes": {}}
        for factor, path in sizes.items():
            key = f"memory_{factor:g}x"
            self.memory["sizes"][f"{factor:g}x"] = {
                "bytes": path.stat().st_size,
                "rows": inputs.count_lines(path),
            }
            params = _one_file_params(upstream, path)
            for _ in range(self.options.runs_of("memory")):
                wh = self.work / "wh-memory"
                warehouses.remove(wh)
                env = warehouses.warehouse_env(wh)
                loaded = self._record(key, self.runner.run("load_file", params, env))
                if loaded.ok and factor == max(MEMORY_FACTORS):  # and its validation: GX in DuckDB
                    validate = {"families": [upstream.family]}
                    self._record("validate_utilization", self.runner.run("validate", validate, env))
                warehouses.remove(wh)
            path.unlink()

    def calibration_phase(self) -> None:
        from benchmarks.calibration import calibration_table
        from benchmarks.calibration_sql import MARTS

        wh = self._landed_from_listing("calibration", workload.calibration_files)
        params = {"families": list(workload.CALIBRATION_FAMILIES)}
        # utilization_percentiles takes exact percentiles here (auto would bin them beyond 20 M samples):
        # DuckDB holds every value of a (cluster, metric) in memory, 190 M for a week of GPU_UTIL at Kalos's
        # width — more than dbt's default cap allows.
        env = warehouses.warehouse_env(
            wh, TRACE_DUCKDB_MEMORY_LIMIT=CALIBRATION_DUCKDB_MEMORY, TRACE_UTILIZATION_PERCENTILES="exact"
        )
        rec = self._record("calibration_load", self.runner.run("load", params, env))
        if rec.ok:
            params |= {"select": list(MARTS), "work_dir": str(self.work / "dbt-calibration")}
            rec = self._record("calibration_dbt", self.runner.run("dbt_build", params, env))
        if rec.ok:
            self.calibration = calibration_table(wh / "trace.duckdb", self.options.scale)
        else:
            self.calibration = {"error": rec.error, "rows": []}
        warehouses.remove(wh)

    def full_shape_phase(self) -> None:
        """One real-shaped file (Kalos GPU_UTIL) through the project's load, validation and dbt build, beside
        the bare readers of the same file, run after run (so load on the machine falls on all alike)."""
        o = self.options
        mirror, wh = self.work / "full-shape-mirror", self.work / "wh-full-shape"
        days = full_shape_days(o.scale)
        params = {"scale": o.scale, "util_nodes": default_util_nodes(o.scale), "util_days": days,
                  "gpu_util_days": days, "seed": o.seed, "out": str(mirror),
                  "utilization_only": [FULL_SHAPE_FILE]}  # fmt: skip
        if not self._record("full_shape_generate", self.runner.run("generate", params, {})).ok:
            raise RuntimeError("the full-shape file could not be generated")
        cluster, metric = FULL_SHAPE_FILE.split("/")
        (upstream,) = [
            f
            for f in workload.utilization_files(warehouses.mirror_listing(mirror))
            if (f.cluster, f.metric) == (cluster, metric)
        ]
        warehouses.remove(wh)
        (path,) = warehouses.land(wh, mirror, [upstream])  # a link to the mirror's file: kept to the end
        with path.open("rb") as fh:
            columns = fh.readline().count(b",") + 1
        self.full_shape = {
            "file": upstream.mirror_path, "bytes": path.stat().st_size, "lines": inputs.count_lines(path),
            "columns": columns, "nodes": params["util_nodes"], "days": days,
        }  # fmt: skip
        say(f"full shape: {upstream.mirror_path}, {self.full_shape['bytes']:,} bytes, {columns:,} columns")
        env = warehouses.warehouse_env(wh)
        for _ in range(o.runs_of("full_shape")):
            warehouses.reset(wh)
            self._record("full_shape_load", self.runner.run("load", {"families": [upstream.family]}, env))
            self._record(
                "full_shape_validate", self.runner.run("validate", {"families": [upstream.family]}, env)
            )
            if not self._skipped("dbt_build"):  # --skip dbt_build: no dbt build anywhere
                dbt_params = {"families": [upstream.family], "work_dir": str(self.work / "dbt-full-shape")}
                self._record("full_shape_dbt", self.runner.run("dbt_build", dbt_params, env))
            self._record(
                "full_shape_pyarrow", self.runner.run("bare_read_pyarrow", {"paths": [str(path)]}, {})
            )
            self._record("full_shape_duckdb", self.runner.run("bare_read", {"paths": [str(path)]}, {}))
        if self._skipped("dbt_build"):
            self._mark_skipped(("full_shape_dbt",), "--skip dbt_build")
        warehouses.remove(wh)
        warehouses.remove(mirror)

    # the whole run ------------------------------------------------------------------------------------
    def run(self) -> None:
        main_mirror = not self.options.only or bool(self.options.only - {"full_shape", "whole_set"})
        if main_mirror:
            self.generate()
        else:
            self._mark_skipped(("generate", *BUILD_STAGES), f"--only {','.join(sorted(self.options.only))}")
        self._phase("fetch", self.fetch)
        wh, tiny = self.work / "wh-workload", self.work / "wh-tiny"
        if main_mirror:
            self._phase("load", lambda: self.build(wh, tiny))
        self._phase("load_utilization", self.load_utilization)
        self._phase("pipeline_total", lambda: self.pipeline_total(wh, tiny))
        self._phase("baselines", lambda: self.baselines(wh))
        self._phase("refresh", self.refresh_phase)
        self._phase("memory", self.memory_phase)
        self._phase("calibration", self.calibration_phase)
        self._phase("full_shape", self.full_shape_phase)
        self._phase("whole_set", lambda: whole_set.run_phase(self))

    def _phase(self, phase: str, step: Callable[[], None]) -> None:
        keys = BUILD_STAGES if phase == "load" else PHASE_STAGES[phase]
        if self._skipped(phase):
            only = self.options.only
            self._mark_skipped(
                keys, f"--only {','.join(sorted(only))}" if only and phase not in only else "--skip"
            )
            return
        say(f"phase {phase}")
        try:
            step()
        except Exception as exc:  # one phase's set-up failure must not lose the others' results
            say(f"phase {phase} failed: {type(exc).__name__}: {exc}")
            traceback.print_exc()
            self._mark_skipped(keys, f"set-up failed: {type(exc).__name__}: {exc}")


def _one_file_params(upstream: UpstreamFile, path: Path) -> dict[str, Any]:
    return {
        "family": upstream.family,
        "repo_path": upstream.repo_path,
        "cluster": upstream.cluster,
        "metric": upstream.metric,
        "path": str(path),
    }


def keep_failed_logs(bench: Benchmark, folder: Path) -> int:
    """Copy the log of every run that did not succeed out of the scratch folder (deleted at the end)."""
    failed = [
        r for s in bench.stages.values() for r in (*s.runs, *s.probes) if r.status in ("failed", "timeout")
    ]
    for record in failed:
        log = Path(record.log)
        if log.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(log, folder / log.name)
            record.log = str(folder / log.name)
    return len(failed)


def main(argv: list[str] | None = None) -> int:
    from benchmarks.results import write_results

    options = parse_options(argv)
    started = time.time()
    work = options.work_dir or Path(tempfile.mkdtemp(prefix="trace-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    say(f"scale {options.scale:g}, {options.runs} run(s), util {options.util_nodes} nodes × "
        f"{options.util_days} day(s), GPU_UTIL {options.gpu_util_days} day(s); work folder {work}")  # fmt: skip
    bench = Benchmark(options, work)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(started))
    try:
        bench.run()
    finally:
        kept = keep_failed_logs(bench, options.results_dir / "logs" / stamp)
        if kept:
            say(f"logs of {kept} failed run(s) kept in {options.results_dir / 'logs' / stamp}")
        paths = write_results(bench, started, stamp)
        if not options.keep_work_dir and options.work_dir is None:
            warehouses.remove(work)
    say(f"results: {', '.join(str(p) for p in paths)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
