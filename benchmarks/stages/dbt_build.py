"""``dbt_build``: ``dbt build`` of the whole dbt project over the warehouse (models, seeds, data tests), as
the Dagster dbt assets run it: a ``dbt`` subprocess with the settings' environment, then what the asset does
after it (the views of a Spark build in trace.duckdb, the reader snapshot).

With ``incremental`` (the refresh) only the lineage of the families with pending partitions is built, as
the automation's run of a changed family does, and the incremental facts replace only those partitions;
without, every partition is rebuilt; either way the pending partitions are consumed
afterwards, as the asset does. With ``select`` (dbt model names) only those models, their parents and the
seeds are built, without tests (the calibration's marts). The detail carries the warehouse's footprint on
disk afterwards (lake, trace.duckdb, its reader snapshot). Target (and log) folder goes to the benchmark's work
folder, so a run never touches ``dbt_project/target``. Unavailable until dbt_project/ exists."""

from __future__ import annotations

import dataclasses
import importlib.util
import shutil
from pathlib import Path

from benchmarks.stage_protocol import StageContext, StageOutput, StageUnavailable
from benchmarks.stages.lake import footprint, lake_rows, landed_bytes

PARTIAL_PARSE = "partial_parse.msgpack"


def run(ctx: StageContext) -> StageOutput:
    from pipelines.lake.pending import partition_models
    from pipelines.warehouse.dbt_build import (
        BUILD_COMMAND,
        DBT_PROJECT_DIR,
        after_build,
        consume_partitions,
        dbt_executable,
        dbt_target,
        lineage_select,
        pending_partitions,
        run_dbt,
    )

    if not (DBT_PROJECT_DIR / "dbt_project.yml").is_file():
        raise StageUnavailable(f"{DBT_PROJECT_DIR}/dbt_project.yml does not exist")
    exe = dbt_executable()
    if shutil.which(exe) is None:
        raise StageUnavailable(f"no dbt executable ({exe})")
    settings = ctx.settings
    engine = ctx.params.get("engine", settings.engine)
    if engine == "spark" and (importlib.util.find_spec("pyspark") is None or shutil.which("java") is None):
        raise StageUnavailable("the Spark target needs pyspark (uv sync --all-extras) and Java")
    settings = dataclasses.replace(settings, engine=engine)
    work = Path(ctx.params["work_dir"])
    target = work / "target"
    target.mkdir(parents=True, exist_ok=True)
    prepared = DBT_PROJECT_DIR / "target" / settings.engine / PARTIAL_PARSE
    if prepared.is_file():  # reuse `make install`'s parse, as the Dagster dbt assets do
        shutil.copyfile(prepared, target / PARTIAL_PARSE)
    families: list[str] = list(ctx.params["families"])
    ctx.ready()
    waiting = pending_partitions(settings)
    keys = sorted(set().union(*waiting.values())) if ctx.params.get("incremental") else None
    select = [f"+{name}" for name in ctx.params.get("select", [])]
    models_only = ["build", "--select", *select, "--resource-type", "model", "seed"]
    changed = sorted(fam for fam, waiting_keys in waiting.items() if waiting_keys)
    lineage = lineage_select(changed) if keys is not None and changed else []
    command = models_only if select else [*BUILD_COMMAND, *lineage]
    proc = run_dbt(settings, command, engine=engine, target_dir=target, capture=True, partition_keys=keys)
    if proc.returncode == 0 and not select:
        consume_partitions(settings, waiting, partition_models())
    if proc.returncode in (0, 1):  # as the asset does: views of a Spark build, the reader snapshot
        after_build(settings, dbt_target(settings, engine), target / "manifest.json")
    ctx.done()
    print(proc.stdout[-20_000:])
    summary = [line[line.index("Done.") :] for line in proc.stdout.splitlines() if "Done. PASS=" in line]
    if proc.returncode not in (0, 1):  # 1: some model or test failed, the timing still stands
        raise RuntimeError(
            f"dbt build exited {proc.returncode}: {proc.stderr[-2000:] or proc.stdout[-2000:]}"
        )
    return StageOutput(
        rows=lake_rows(settings, families),
        bytes=landed_bytes(settings, families),
        detail={
            "exit_code": proc.returncode,
            "summary": summary[-1].strip() if summary else "",
            "partition_keys": keys,
            "select": lineage[1:],
            "footprint": footprint(settings),
        },
    )
