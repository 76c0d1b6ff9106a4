"""``dbt_build``: ``dbt build`` of the whole dbt project over the warehouse (models, seeds, data tests), as
the Dagster dbt assets run it: a ``dbt`` subprocess with the settings' environment.

With ``incremental`` the incremental facts replace only the raw partitions pending since the last build
(the refresh); without, every partition is rebuilt; either way the pending partitions are consumed
afterwards, as the asset does. With ``select`` (dbt model names) only those models, their parents and the
seeds are built, without tests (the calibration's marts). Target and log folders go to the benchmark's work
folder, so a run never touches ``dbt_project/target``. Unavailable until pipelines/assets/dbt.py and
dbt_project/ exist."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

from benchmarks.stage_protocol import StageContext, StageOutput, StageUnavailable
from benchmarks.stages.lake import lake_rows, landed_bytes

PARTIAL_PARSE = "partial_parse.msgpack"


def run(ctx: StageContext) -> StageOutput:
    try:
        from pipelines.assets.dbt import (
            DBT_PROJECT_DIR,
            consume_partitions,
            dbt_build_args,
            dbt_env,
            dbt_executable,
            dbt_target,
            pending_partitions,
        )
    except ImportError as exc:
        raise StageUnavailable(f"the dbt assets are not importable: {exc}") from exc
    from pipelines.refresh.pending import FACTS_BY_FAMILY
    from pipelines.settings import load_settings

    if not (DBT_PROJECT_DIR / "dbt_project.yml").is_file():
        raise StageUnavailable(f"{DBT_PROJECT_DIR}/dbt_project.yml does not exist")
    exe = dbt_executable()
    if shutil.which(exe) is None:
        raise StageUnavailable(f"no dbt executable ({exe})")
    settings = load_settings()
    engine = ctx.params.get("engine", settings.engine)
    if engine == "spark" and (importlib.util.find_spec("pyspark") is None or shutil.which("java") is None):
        raise StageUnavailable("the Spark target needs pyspark (uv sync --all-extras) and Java")
    settings = dataclasses.replace(settings, engine=engine)
    work = Path(ctx.params["work_dir"])
    target, logs = work / "target", work / "logs"
    target.mkdir(parents=True, exist_ok=True)
    prepared = DBT_PROJECT_DIR / "target" / settings.engine / PARTIAL_PARSE
    if prepared.is_file():  # reuse `make install`'s parse, as the Dagster dbt assets do
        shutil.copyfile(prepared, target / PARTIAL_PARSE)
    env = {**os.environ, **dbt_env(settings)}
    families: list[str] = list(ctx.params["families"])
    ctx.ready()
    waiting = pending_partitions(settings)
    keys = sorted(set().union(*waiting.values())) if ctx.params.get("incremental") else None
    select = [f"+{name}" for name in ctx.params.get("select", [])]
    models_only = ["build", "--select", *select, "--resource-type", "model", "seed"]
    command = models_only if select else dbt_build_args(keys)
    argv = [exe, *command, "--project-dir", str(DBT_PROJECT_DIR)]
    argv += ["--profiles-dir", str(DBT_PROJECT_DIR), "--target", dbt_target(engine, settings)]
    argv += ["--target-path", str(target), "--log-path", str(logs)]
    proc = subprocess.run(argv, cwd=DBT_PROJECT_DIR, env=env, capture_output=True, text=True, check=False)
    if proc.returncode == 0 and not select:
        consume_partitions(settings, waiting, {m for facts in FACTS_BY_FAMILY.values() for m in facts})
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
        },
    )
