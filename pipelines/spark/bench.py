"""``python -m pipelines.spark.bench``: ``dbt build`` on DuckDB and on Spark over the same lake, side by side.

Each engine builds every model, seed and test of the dbt project from ``$WAREHOUSE_DIR``'s lake (DuckDB into
``trace.duckdb``, Spark into ``$WAREHOUSE_DIR/spark/``), one after the other, each as its own ``dbt``
process. Reported per engine: wall time, peak memory of the whole process tree (dbt and, for Spark, the JVM
that pyspark starts — ``/usr/bin/time`` and ``ru_maxrss`` of dbt alone miss it), and dbt's summary line.
``make bench`` can call :func:`build_on` per engine (one stage each) or :func:`compare_engines` once.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from pipelines.settings import ENGINES, Settings, load_settings

PARTIAL_PARSE = "partial_parse.msgpack"


@dataclass
class EngineRun:
    engine: str
    target: str
    seconds: float
    peak_rss_bytes: int
    exit_code: int
    summary: str

    @property
    def peak_rss_gib(self) -> float:
        return self.peak_rss_bytes / 2**30


def tree_rss(pid: int) -> int:
    """Resident memory of ``pid`` and all its descendants, in bytes (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        stack += children.get(current, [])
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, ValueError):
            continue
    return total


def build_on(
    settings: Settings, engine: str, work_dir: Path, args: Sequence[str] = ("build",), poll: float = 0.25
) -> EngineRun:
    """Run ``dbt <args>`` on ``engine`` over ``settings``' warehouse; measure it (see the module doc)."""
    from pipelines.assets.dbt import DBT_PROJECT_DIR, dbt_env, dbt_executable, dbt_target

    settings = replace(settings, engine=engine)  # type: ignore[arg-type]
    target = dbt_target(engine, settings)
    out = work_dir / f"dbt-{engine}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    prepared = DBT_PROJECT_DIR / "target" / engine / PARTIAL_PARSE
    if prepared.is_file():  # reuse `make install`'s parse, as the Dagster dbt assets do
        shutil.copyfile(prepared, out / PARTIAL_PARSE)
    command = [dbt_executable(), *args, "--project-dir", str(DBT_PROJECT_DIR)]
    command += ["--profiles-dir", str(DBT_PROJECT_DIR), "--target", target]
    command += ["--target-path", str(out), "--log-path", str(out)]
    env = {**os.environ, **dbt_env(settings), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    started = time.monotonic()
    with (out / "stdout.log").open("w") as log:
        process = subprocess.Popen(
            command, cwd=DBT_PROJECT_DIR, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        peak = 0
        while process.poll() is None:
            peak = max(peak, tree_rss(process.pid))
            time.sleep(poll)
    seconds = time.monotonic() - started
    lines = (out / "stdout.log").read_text(errors="replace").splitlines()
    summary = next((line.split("Done. ", 1)[1] for line in reversed(lines) if "Done. PASS=" in line), "")
    return EngineRun(engine, target, seconds, peak, process.returncode, summary.strip())


def compare_engines(
    settings: Settings, work_dir: Path, engines: Sequence[str] = ENGINES, args: Sequence[str] = ("build",)
) -> list[EngineRun]:
    return [build_on(settings, engine, work_dir, args) for engine in engines]


def format_runs(runs: Sequence[EngineRun]) -> str:
    header = f"{'engine':<8} {'target':<13} {'seconds':>8} {'peak RSS (tree)':>16}  dbt"
    lines = [header, "-" * len(header)]
    for run in runs:
        lines.append(
            f"{run.engine:<8} {run.target:<13} {run.seconds:>8.1f} {run.peak_rss_gib:>12.2f} GiB  "
            f"{run.summary or f'exit {run.exit_code}'}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", action="append", choices=ENGINES, help="repeatable; default: both")
    parser.add_argument("--work-dir", type=Path, default=None, help="dbt target/log folders (default: tmp)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    settings = load_settings()
    work = args.work_dir or settings.warehouse_dir / ".tmp" / "engine-bench"
    runs = compare_engines(settings, work, args.engine or ENGINES)
    if args.json:
        print(json.dumps([{**asdict(r), "peak_rss_gib": round(r.peak_rss_gib, 3)} for r in runs], indent=2))
    else:
        print(format_runs(runs))
    return 0 if all(r.exit_code in (0, 1) for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
