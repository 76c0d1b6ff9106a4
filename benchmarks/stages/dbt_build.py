"""``dbt_build``: ``dbt build`` of the whole dbt project over the warehouse (models, seeds, data tests), as
the Dagster dbt assets run it: a ``dbt`` subprocess with the settings' environment. Its target and log
folders go to the benchmark's work folder, so a run never touches ``dbt_project/target``. Unavailable
until pipelines/assets/dbt.py and dbt_project/ exist."""

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
        from pipelines.assets.dbt import DBT_PROJECT_DIR, dbt_env, dbt_executable, dbt_target
    except ImportError as exc:
        raise StageUnavailable(f"the dbt assets are not importable: {exc}") from exc
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
    argv = [exe, "build", "--project-dir", str(DBT_PROJECT_DIR), "--profiles-dir", str(DBT_PROJECT_DIR)]
    argv += ["--target", dbt_target(engine, settings)]
    argv += ["--target-path", str(target), "--log-path", str(logs), *ctx.params.get("args", [])]
    env = {**os.environ, **dbt_env(settings)}
    families: list[str] = list(ctx.params["families"])
    ctx.ready()
    proc = subprocess.run(argv, cwd=DBT_PROJECT_DIR, env=env, capture_output=True, text=True, check=False)
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
        detail={"exit_code": proc.returncode, "summary": summary[-1].strip() if summary else ""},
    )
