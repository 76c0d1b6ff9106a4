"""Incremental refresh end to end: build on a mirror, change two upstream files, let the sensor tick, run
what it requests, and prove that only the changed partitions were rewritten and rebuilt."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import pytest

from pipelines.families.registry import fixed_files
from pipelines.sample import generate_sample
from tests.e2e.cli import query, run_cli
from tests.support.mirror_publish import republish, sha

BURST_2 = next(f for f in fixed_files() if f.file_name == "BurstGPT_2.csv")
SEREN = next(f for f in fixed_files() if f.file_name == "trace_seren.csv")


def _lake_files(wh: Path) -> dict[str, str]:
    return {
        str(p.relative_to(wh)): sha(p) for p in sorted((wh / "lake" / "raw").glob("*/_partition=*/*.parquet"))
    }


# The lake model rebuilt whole on every run (lake_table_config).
WHOLE_MODEL = "int_jobs_deduplicated"


def _model_files(wh: Path) -> dict[str, str]:
    """The Parquet files of the dbt models DuckDB keeps in the lake (lake/models/<model>/_partition=<key>/)."""
    return {
        str(p.relative_to(wh)): sha(p)
        for p in sorted((wh / "lake" / "models").glob("*/_partition=*/*.parquet"))
    }


def _dbt_lineage(manifest: dict, families: list[str]) -> set[str]:
    """Every dbt node downstream of these families' ``raw``/``quarantine`` sources (tests included)."""
    todo = [
        uid
        for uid, src in manifest["sources"].items()
        if src["source_name"] in ("raw", "quarantine") and src["name"] in families
    ]
    seen: set[str] = set()
    while todo:
        for child in manifest["child_map"].get(todo.pop(), []):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


@pytest.fixture
def mirror_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, dict[str, str]]:
    mirror = tmp_path / "mirror"
    generate_sample(mirror)
    wh = tmp_path / "warehouse"
    env = {
        "WAREHOUSE_DIR": str(wh),
        "DAGSTER_HOME": str(wh / ".dagster"),
        "TRACE_SOURCE": "mirror",
        "TRACE_MIRROR_DIR": str(mirror),
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return mirror, wh, env


def _parse_events(runs: Path) -> set[str]:
    """The names of the partial-parse events of dbt's last invocation in ``runs`` (dbt.log and the files dbt
    rotated it into, JSON lines)."""
    invocation = json.loads((runs / "run_results.json").read_text())["metadata"]["invocation_id"]
    lines = [line for log in sorted(runs.glob("dbt.log*")) for line in log.read_text().splitlines()]
    events = (json.loads(line)["info"] for line in lines if line.startswith("{"))
    return {e["name"] for e in events if e["invocation_id"] == invocation and "PartialPars" in e["name"]}


def test_sensor_refreshes_only_changed_partitions(mirror_env) -> None:
    mirror, wh, env = mirror_env
    built = run_cli("run", env=env)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert not list((wh / "lake" / "_pending").glob("*.json"))  # the build consumed them
    files_before, models_before = _lake_files(wh), _model_files(wh)
    requests_before = query(wh, "select * from marts.fct_request order by _source_file, _row_number")
    jobs_before = query(wh, "select * from marts.fct_job order by _source_file, _row_number")

    # 1. a new day appended to BurstGPT_2.csv
    burst = mirror / BURST_2.mirror_path
    last_ts = int(burst.read_text().rstrip("\n").rsplit("\n", 1)[-1].split(",", 1)[0])
    new_day = last_ts // 86400 + 1
    new_rows = [
        f"{new_day * 86400 + s},GPT-4,{100 + s},{7 + s},{107 + 2 * s},Conversation log" for s in (5, 9, 60)
    ]
    with burst.open("a") as fh:
        fh.write("\n".join(new_rows) + "\n")
    # 2. one row of an old month of trace_seren.csv changed (its user)
    seren = mirror / SEREN.mirror_path
    lines = seren.read_text().split("\n")
    target = next(i for i, line in enumerate(lines) if ",2023-05-1" in line and i > 3)
    job_id = lines[target].split(",", 1)[0]
    fields = lines[target].split(",")
    fields[1] = "u_refreshed"
    lines[target] = ",".join(fields)
    seren.write_text("\n".join(lines))
    for f in (BURST_2, SEREN):
        republish(mirror, f.mirror_path)

    from pipelines.definitions import all_assets, build_definitions
    from pipelines.defs.automation import TRIGGER_TAG, upstream_change_sensor
    from pipelines.defs.checks import family_asset_checks
    from pipelines.defs.dbt import dbt_project, run_target_dir, target_dir
    from pipelines.defs.resources import resource_defs
    from pipelines.settings import load_settings

    settings = load_settings()
    defs = build_definitions(settings)
    repository = defs.get_repository_def()
    instance = dg.DagsterInstance.get()

    def sensor_context(cursor: str | None = None) -> dg.SensorEvaluationContext:
        return dg.build_sensor_context(
            instance=instance, repository_def=repository, resources=resource_defs(settings), cursor=cursor
        )

    def requested(evaluation) -> set[str]:
        return {
            r.key.to_user_string()
            for r in evaluation.results
            if isinstance(r.key, dg.AssetKey) and not r.true_subset.is_empty
        }

    # The automation's first tick after the build: nothing to do (nothing missing, nothing updated).
    quiet_tick = dg.evaluate_automation_conditions(defs=defs, instance=instance)
    assert requested(quiet_tick) == set()

    # The upstream sensor reports the two changed families as materializations of their upstream assets …
    result = upstream_change_sensor(sensor_context())
    reported = sorted(e.asset_key.to_user_string() for e in result.asset_events)
    assert reported == ["upstream/acme__seren_jobs", "upstream/burstgpt__requests"]
    for event in result.asset_events:
        instance.report_runless_asset_event(event)
    # … and the eager conditions request their landing, raw and downstream assets in one tick, nothing else.
    tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=quiet_tick.cursor)
    wanted = requested(tick)
    families = ["acme__seren_jobs", "burstgpt__requests"]
    assert {k for k in wanted if k.startswith(("landing/", "raw/"))} == {
        f"{layer}/{f}" for layer in ("landing", "raw") for f in families
    }
    assert {"marts/fct_request", "marts/fct_job"} <= wanted
    assert "marts/fct_node_metric" not in wanted and "marts/fct_server_power" not in wanted
    run_results = run_target_dir(settings, dbt_project(settings)) / "run_results.json"
    run = dg.materialize(
        [*all_assets(settings), *family_asset_checks()],
        selection=[dg.AssetKey.from_user_string(k) for k in sorted(wanted)],
        instance=instance,
        resources=resource_defs(settings),
        tags={TRIGGER_TAG: "automation"},
    )
    assert run.success
    # dbt built only models and tests of the changed families' lineage (from dbt's own run results).
    results = json.loads(run_results.read_text())["results"]
    built = {r["unique_id"] for r in results if not r["unique_id"].startswith("operation.")}
    manifest = json.loads((target_dir(dbt_project(settings)) / "manifest.json").read_text())
    lineage = _dbt_lineage(manifest, families)
    assert built and built <= lineage, sorted(built - lineage)[:10]
    assert not any(".fct_node_metric" in node for node in built)
    # … on the parse of the build before: the partitions reach dbt in no part of its parse state.
    parse = _parse_events(run_results.parent)
    assert "PartialParsingEnabled" in parse and "UnableToPartialParse" not in parse, parse
    # Reported once: the sensor's next tick reports nothing, and the automation requests nothing more.
    again = upstream_change_sensor(sensor_context(result.cursor))
    assert not again.asset_events
    settled = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=tick.cursor)
    assert requested(settled) == set()
    # BurstGPT_2 grew by whole lines: its load parsed only the three appended ones (the load's own counters).
    from pipelines.defs.keys import raw_key

    event = instance.get_latest_materialization_event(raw_key("burstgpt__requests"))
    assert event is not None and event.asset_materialization is not None
    meta = event.asset_materialization.metadata
    assert (meta["files_appended"].value, meta["lines_parsed"].value) == (1, 3)

    # Only the two changed partitions were rewritten in the lake; every other Parquet file is byte-identical.
    files_after = _lake_files(wh)
    changed = {p for p in files_after if files_after[p] != files_before.get(p)}
    seren_month = query(wh, f"select _partition from raw.acme__seren_jobs where job_id = {job_id}")[0][0]
    assert changed == {
        f"lake/raw/burstgpt__requests/_partition={new_day:04d}/BurstGPT_2.parquet",
        f"lake/raw/acme__seren_jobs/_partition={seren_month}/trace_seren.parquet",
    }
    # dbt replaced exactly those partitions: new rows in, changed row updated, every other row identical.
    loads = json.loads((wh / "lake" / "_state" / "acme__seren_jobs" / "trace_seren.json").read_text())
    assert loads["sha256"] == sha(seren)
    new = query(wh, f"select count(*) from marts.fct_request where day_index = {new_day}")
    assert new == [(3,)]
    user = query(
        wh,
        f"select u.user_name from marts.fct_job j join marts.dim_user u using (user_key) where j.job_id = '{job_id}'",
    )
    assert user == [("u_refreshed",)]
    requests_after = query(
        wh, f"select * from marts.fct_request where day_index <> {new_day} order by _source_file, _row_number"
    )
    assert requests_after == requests_before
    jobs_after = query(wh, "select * from marts.fct_job order by _source_file, _row_number")
    diff = [(a, b) for a, b in zip(jobs_before, jobs_after, strict=True) if a != b]
    assert len(diff) == 1 and diff[0][1][1] == job_id
    assert not list((wh / "lake" / "_pending").glob("*.json"))
    # … written as one file per partition: the new day's and the changed month's, every other byte-identical.
    # (The jobs' de-duplication ranks a whole family, so it is rewritten whole: every one of its files.)
    models_after = _model_files(wh)
    changed_files = {p for p in models_after if models_after[p] != models_before.get(p)}
    whole = {p for p in models_after if p.startswith(f"lake/models/{WHOLE_MODEL}/")}
    assert whole and whole <= changed_files
    assert changed_files - whole == {
        f"lake/models/fct_request/_partition={new_day:04d}/data_0.parquet",
        f"lake/models/fct_job/_partition={seren_month}/data_0.parquet",
    }

    # 3. the daily refresh when nothing changed upstream (its figures apart): every asset succeeds, nothing in
    # the lake changes, and dbt is not invoked.
    from pipelines.defs.automation import EVERYTHING
    from pipelines.defs.keys import REPORT_GROUP
    from pipelines.defs.run_jobs import plan_runs

    stamp = run_results.stat().st_mtime_ns
    everything = plan_runs(
        [*all_assets(settings), *family_asset_checks()],
        EVERYTHING - dg.AssetSelection.groups(REPORT_GROUP),
        resource_defs(settings),
    )
    for part in everything.parts:  # the utilization families over all their file partitions, then the rest
        quiet = part.job.execute_in_process(instance=instance, tags={TRIGGER_TAG: "automation", **part.tags})
        assert quiet.success
    assert run_results.stat().st_mtime_ns == stamp
    assert _lake_files(wh) == files_after and _model_files(wh) == models_after

    # 4. `trace-warehouse run` takes the same path: another day of BurstGPT_2.csv lands, loads and goes through
    # dbt to the reports; the families that did not change are neither landed nor loaded again.
    with burst.open("a") as fh:
        fh.write(f"{(new_day + 1) * 86400 + 3},GPT-4,50,5,55,API log\n")
    republish(mirror, BURST_2.mirror_path)
    cli = run_cli("run", env=env)
    assert cli.returncode == 0, cli.stdout[-3000:] + cli.stderr[-3000:]
    assert "landing/burstgpt__requests " in cli.stdout and "raw/burstgpt__requests " in cli.stdout
    assert "landing/acme__seren_jobs" not in cli.stdout and "dbt: skipped" not in cli.stdout
    assert "report/* (" in cli.stdout
    assert query(wh, f"select count(*) from marts.fct_request where day_index = {new_day + 1}") == [(1,)]
    assert run_results.stat().st_mtime_ns != stamp


def test_a_broken_upstream_file_fails_alone(mirror_env) -> None:
    """A Git LFS pointer in place of BurstGPT_1.csv while BurstGPT_2.csv gains a day: the healthy sibling is
    landed and loaded, BurstGPT_1's published partitions stay as they were, and the run names the file,
    fails its family's ``files_landed`` check and exits 1."""
    mirror, wh, env = mirror_env
    landing_and_raw = "group:landing or group:raw"
    built = run_cli("run", "--select", landing_and_raw, env=env)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    burst_1 = next(f for f in fixed_files() if f.file_name == "BurstGPT_1.csv")
    before = {p: h for p, h in _lake_files(wh).items() if p.endswith("/BurstGPT_1.parquet")}
    assert before

    pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 + "\nsize 1234567\n"
    (mirror / burst_1.mirror_path).write_text(pointer)
    burst_2 = mirror / BURST_2.mirror_path
    last_ts = int(burst_2.read_text().rstrip("\n").rsplit("\n", 1)[-1].split(",", 1)[0])
    new_day = last_ts // 86400 + 1
    with burst_2.open("a") as fh:
        fh.write(f"{new_day * 86400 + 1},ChatGPT,10,2,12,API log\n")
    for f in (burst_1, BURST_2):
        republish(mirror, f.mirror_path)

    again = run_cli("run", "--select", landing_and_raw, env=env)
    assert again.returncode == 1, again.stdout[-3000:] + again.stderr[-3000:]
    summary = again.stdout
    assert "landing/burstgpt__requests" in summary and "files_landed" in summary and "ERROR" in summary, (
        again.stderr[-3000:]
    )
    assert f"{burst_1.mirror_path}: this is a Git LFS pointer file" in summary
    (stages,) = [line for line in summary.splitlines() if line.startswith("time by stage: ")]
    assert [part.split()[0] for part in stages.removeprefix("time by stage: ").split(" · ")][:2] == [
        "landing",
        "raw",
    ]
    # the sibling went through: landed, loaded (only its new line parsed) ...
    assert query(wh, f"select count(*) from raw.burstgpt__requests where _partition = '{new_day:04d}'") == [
        (1,)
    ]
    # ... and the broken file's partitions are the ones published before, byte for byte
    assert {p: h for p, h in _lake_files(wh).items() if p.endswith("/BurstGPT_1.parquet")} == before
    landed = json.loads(next((wh / "manifest").rglob("BurstGPT_1.csv.json")).read_text())
    assert landed["sha256"] != sha(mirror / burst_1.mirror_path)  # the landed copy is still the CSV
