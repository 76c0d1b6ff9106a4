"""``python -m benchmarks.stage <name> --params JSON --result FILE``: one measured stage, in its own process.

The harness starts each stage as a separate process and measures it from outside (wall time, peak memory
of the process tree). The stage says, in its result file, when it was **ready** (interpreter, imports,
engines loaded: the fixed start-up) and when it was **done** (the work), as ``time.monotonic()`` values —
Linux's ``CLOCK_MONOTONIC`` is system-wide, so they compare with the harness's own clock. It also reports
the rows and bytes it processed and stage-specific details.

Exit status: 0 ok, 3 the stage is not available in this tree (e.g. dbt not written yet), 1 it failed.
"""

from __future__ import annotations

import time

STARTED_AT = time.monotonic()  # the interpreter is up; nothing but the standard library imported yet

import argparse  # noqa: E402  (after the start stamp on purpose)
import importlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from benchmarks.stage_protocol import StageContext, StageFunction, StageUnavailable  # noqa: E402

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_UNAVAILABLE = 3

# Stage name → "module:function"; imported only when that stage runs.
STAGES: dict[str, str] = {
    "generate": "benchmarks.stages.generate:run",
    "fetch": "benchmarks.stages.fetch:run",
    "load": "benchmarks.stages.load:run",
    "load_file": "benchmarks.stages.load:run_one_file",
    "validate": "benchmarks.stages.validate:run",
    "dbt_build": "benchmarks.stages.dbt_build:run",
    "dbt_build_spark": "benchmarks.stages.dbt_build:run",
    "report": "benchmarks.stages.report:run",
    "pipeline": "benchmarks.stages.pipeline:run",
    "refresh": "benchmarks.stages.refresh:run",
    "refresh_unchanged": "benchmarks.stages.refresh:run_unchanged",
    "cli_run": "benchmarks.stages.cli_run:run",
    "cookbook": "benchmarks.stages.cookbook:run",
    "bare_read": "benchmarks.baselines.duckdb_read:run",
    "bare_read_pyarrow": "benchmarks.baselines.pyarrow_read:run",
    "pandas_notebook": "benchmarks.baselines.pandas_notebook:run",
}


def resolve(name: str) -> StageFunction:
    try:
        target = STAGES[name]
    except KeyError:
        raise SystemExit(f"unknown stage {name!r}; known: {', '.join(STAGES)}") from None
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(module), func)


def execute(name: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Run stage ``name``; return the exit status and the result document."""
    ctx = StageContext(params, started_at=STARTED_AT)
    doc: dict[str, Any] = {"stage": name, "started_at": ctx.started_at}
    try:
        out = resolve(name)(ctx)
    except StageUnavailable as exc:
        return EXIT_UNAVAILABLE, {**doc, "status": "unavailable", "error": str(exc)}
    except Exception as exc:
        trace = traceback.format_exc()
        print(trace, file=sys.stderr)
        return EXIT_FAILED, {**doc, "status": "failed", "error": f"{type(exc).__name__}: {exc}"}
    now = time.monotonic()
    ready = ctx.ready_at if ctx.ready_at is not None else ctx.started_at
    done = ctx.done_at if ctx.done_at is not None else now
    return EXIT_OK, {
        **doc,
        "status": "ok",
        "ready_at": ready,
        "done_at": done,
        "rows": out.rows,
        "bytes": out.bytes,
        "detail": out.detail,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run one benchmark stage (the harness starts these).")
    parser.add_argument("name", choices=sorted(STAGES))
    parser.add_argument("--params", default="{}", help="the stage's parameters as a JSON object")
    parser.add_argument("--result", type=Path, required=True, help="where to write the result JSON")
    args = parser.parse_args(argv)
    code, doc = execute(args.name, json.loads(args.params))
    args.result.parent.mkdir(parents=True, exist_ok=True)
    args.result.write_text(json.dumps(doc, indent=2, default=str) + "\n", encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main())
