"""``cli_run``: ``trace-warehouse run --source mirror --mirror M`` — the CLI's entry point
(``pipelines.cli.main``, what the ``trace-warehouse`` script calls) in the stage process, so the harness
measures its whole process tree. Start-up is the import of the CLI and its run module; the work is the
command itself (definitions, every Dagster run it launches, its summary). Afterwards, untimed: where the time
went, from the runs' Dagster event log and dbt's ``run_results.json`` (``benchmarks/run_timings.py``)."""

from __future__ import annotations

from benchmarks.stage_protocol import StageContext, StageOutput


def run(ctx: StageContext) -> StageOutput:
    import pipelines.run  # noqa: F401  (the command's module: start-up, not work)
    from benchmarks import run_timings
    from pipelines import cli
    from pipelines.defs.instance import open_instance

    settings = ctx.settings
    with open_instance(settings) as instance:
        before = run_timings.run_ids(instance)
    argv = ["run", "--source", "mirror", "--mirror", ctx.params["mirror"]]
    ctx.ready()
    code = cli.main(argv)
    ctx.done()
    if code != 0:
        raise RuntimeError(
            f"trace-warehouse {' '.join(argv)} exited with {code} (its summary is in this stage's log; "
            f"Dagster's and dbt's in {settings.warehouse_dir / 'logs'})"
        )
    detail = run_timings.collect(settings, before)
    return StageOutput(bytes=ctx.params.get("csv_bytes"), detail=detail)
