"""Replay exports on the shared fixture warehouse (400 real BurstGPT_1 rows, 2 synthetic BurstGPT_3 rows, real
and synthetic jobs), each read back by a reader that follows its consumer's parsing rules
(``tests/support/replay_readers.py``): the row count and token sums equal the window's in ``marts.fct_request``
(``marts.fct_job`` for jobs) queried directly; the same window gives the same bytes; ``--speed 2`` halves the
inter-arrival times; the sidecar says which rows are synthetic; errors are clear.
"""

from __future__ import annotations

import json
import re
import shutil
from itertools import pairwise
from pathlib import Path

import dagster as dg
import duckdb
import pandas as pd
import pytest

from pipelines.defs.exports import export_assets
from pipelines.defs.keys import EXPORT_GROUP, SETTINGS, export_key
from pipelines.export.formats import FORMATS
from pipelines.export.hash_ids import BLOCK_SIZE
from pipelines.export.writer import ExportError, ExportRequest, export
from pipelines.settings import Settings, load_settings
from tests.support.replay_readers import (
    HELIOS_USECOLS,
    aiperf_mooncake,
    helios_trace,
    simulator_jobs,
    vidur_trace,
    vllm_burstgpt,
)

FILE_1 = ("0", "40000")  # BurstGPT_1's 400 real rows: Timestamp 5 -> 37,274
REQUESTS = """
select count(*), coalesce(sum(r.request_tokens), 0), coalesce(sum(r.response_tokens), 0)
from marts.fct_request as r
inner join marts.dim_model as m on r.model_key = m.model_key
inner join marts.dim_log_type as l on r.log_type_key = l.log_type_key
where {where}
"""


def warehouse_rows(settings: Settings, sql: str) -> list[tuple]:
    con = duckdb.connect(str(settings.duckdb_path), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def window_totals(settings: Settings, where: str) -> tuple[int, int, int]:
    """Requests, request tokens, response tokens of the window in fct_request, by a query of our own."""
    return warehouse_rows(settings, REQUESTS.format(where=where))[0]


def run(settings: Settings, tmp_path: Path, name: str, **kwargs) -> tuple[Path, dict]:
    out = tmp_path / f"{name}-{len(list(tmp_path.iterdir()))}{Path(FORMATS[name].file_name).suffix}"
    result = export(settings, ExportRequest(name, out=out, **kwargs))
    assert result.path == out and result.sidecar == out.with_name(out.name + ".meta.json")
    return out, json.loads(result.sidecar.read_text(encoding="utf-8"))


def test_burstgpt_csv_reads_by_position_as_vllm_does(fixture_warehouse: Settings, tmp_path: Path) -> None:
    path, meta = run(fixture_warehouse, tmp_path, "burstgpt", window=FILE_1)
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert header == "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"
    read = vllm_burstgpt(path)
    assert all(len(row) == 6 for row in read.rows)
    # every row, by position as vLLM takes them: failed requests are kept (the upstream shape)
    positional = (len(read.rows), sum(int(r[2]) for r in read.rows), sum(int(r[3]) for r in read.rows))
    assert positional == window_totals(fixture_warehouse, "timestamp_s >= 0 and timestamp_s < 40000")
    assert positional[0] == 400 == meta["rows"] and meta["failed_requests_in_window"] == 17
    # the rows vLLM's burstgpt dataset keeps: GPT-4, Response tokens > 0
    kept = (len(read.samples), sum(i for i, _ in read.samples), sum(o for _, o in read.samples))
    expected = window_totals(
        fixture_warehouse, "timestamp_s < 40000 and m.model_name = 'GPT-4' and r.response_tokens > 0"
    )
    assert kept == expected and kept[0] > 0
    assert (meta["request_tokens"], meta["response_tokens"]) == positional[1:]


def test_the_positional_reader_breaks_on_the_8_column_layout(tmp_path: Path) -> None:
    """Why the export exists: BurstGPT_3's inserted columns put Elapsed time and Model at positions 2, 3."""
    v2 = tmp_path / "BurstGPT_3.csv"
    v2.write_text(
        "Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
        "19440110.0,3f2b6a9e-1c4d-4e1a-9a51-1b2c3d4e5f60,12.5,GPT-4,100,20,120,Conversation log\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="GPT-4"):
        vllm_burstgpt(v2)


def test_mooncake_jsonl_validates_as_aiperf_reads_it(fixture_warehouse: Settings, tmp_path: Path) -> None:
    path, meta = run(fixture_warehouse, tmp_path, "mooncake")  # the whole trace: files 1 and 3
    traces = aiperf_mooncake(path)
    totals = (len(traces), sum(t["input_length"] for t in traces), sum(t["output_length"] for t in traces))
    assert totals == window_totals(fixture_warehouse, "not r.is_failed")
    assert [list(t) for t in traces[:1]] == [["timestamp", "input_length", "output_length", "hash_ids"]]
    first = warehouse_rows(fixture_warehouse, "select min(timestamp_s) from marts.fct_request")[0][0]
    arrivals = warehouse_rows(
        fixture_warehouse,
        "select timestamp_s from marts.fct_request where not is_failed "
        "order by timestamp_s, _source_file, _row_number",
    )
    assert [t["timestamp"] for t in traces] == [round((a - first) * 1000) for (a,) in arrivals]
    ids = [h for t in traces for h in t["hash_ids"]]
    assert ids == list(range(len(ids)))  # no session spans two exported turns here: all blocks are new
    assert meta["hash_ids"]["block_size"] == BLOCK_SIZE and "session" in meta["hash_ids"]["rule"]
    assert meta["failed_requests"].startswith("left out") and meta["rows_in_window"] == totals[0] + 18


def test_vidur_csv_reads_as_trace_replay_does(fixture_warehouse: Settings, tmp_path: Path) -> None:
    path, meta = run(
        fixture_warehouse,
        tmp_path,
        "vidur",
        window=("0", "+3h"),
        model="ChatGPT",
        log_type="Conversation log",
    )
    requests, raw = vidur_trace(path)
    assert list(raw.columns) == ["arrived_at", "num_prefill_tokens", "num_decode_tokens"]
    assert (raw["num_prefill_tokens"] >= 1).all() and (raw["num_decode_tokens"] >= 1).all()  # no clipping
    totals = (
        len(requests),
        int(sum(r.num_prefill_tokens for r in requests)),
        int(sum(r.num_decode_tokens for r in requests)),
    )
    assert totals == window_totals(
        fixture_warehouse,
        "timestamp_s < 10800 and m.model_name = 'ChatGPT' and l.log_type = 'Conversation log' "
        "and not r.is_failed",
    )
    assert totals[0] > 10 and meta["filters"] == {"model": "ChatGPT", "log_type": "Conversation log"}
    assert meta["window"]["start"] == 0 and meta["window"]["end"] == 10800


def test_acme_jobs_read_as_a_simulator_does(fixture_warehouse: Settings, tmp_path: Path) -> None:
    path, meta = run(fixture_warehouse, tmp_path, "acme-jobs", window=("2023-01-01", "2024-01-01"))
    jobs = simulator_jobs(path)
    expected = warehouse_rows(
        fixture_warehouse,
        "select count(*), sum(gpu_num), sum(coalesce(run_s, reported_duration_s)) from marts.fct_job "
        "where submit_time_utc >= '2023-01-01' and submit_time_utc < '2024-01-01' "
        "and coalesce(run_s, reported_duration_s) is not null",
    )[0]
    assert (len(jobs), jobs["gpu_num"].sum(), jobs["duration"].sum()) == pytest.approx(expected)
    assert set(jobs["cluster"]) == {"seren", "kalos"} and "RUNNING" not in set(jobs["state"])
    assert meta["rows_in_window"] == len(jobs) + 1  # the RUNNING job has no duration
    first = warehouse_rows(
        fixture_warehouse,
        "select epoch(min(submit_time_utc)) - epoch(timestamp '2023-01-01') from marts.fct_job"
        " where submit_time_utc >= '2023-01-01'",
    )[0][0]
    assert jobs["submit_time"].iloc[0] == pytest.approx(first)
    assert meta["data_origin"] == "mixed" and meta["real_rows"] == 4


JOBS_OF = """
select {what} from marts.fct_job as j
inner join marts.dim_cluster as c on j.cluster_key = c.cluster_key
where {where}
"""
YEAR_2023 = ("2023-01-01", "2024-01-01")
IN_2023 = "submit_time_utc >= '2023-01-01' and submit_time_utc < '2024-01-01'"


def jobs_of(settings: Settings, what: str, where: str) -> list[tuple]:
    return warehouse_rows(settings, JOBS_OF.format(what=what, where=where))


def effects_by_reason(meta: dict, words: str) -> list[dict]:
    return [e for e in meta["consumer_effects"] if words in e["reason"]]


def test_helios_csv_reads_as_the_helios_simulator_does(fixture_warehouse: Settings, tmp_path: Path) -> None:
    path, meta = run(fixture_warehouse, tmp_path, "helios", window=YEAR_2023, cluster="seren")
    read = helios_trace(path, vcs={"seren"})
    assert list(read.raw.columns) == HELIOS_USECOLS  # usecols keeps the file's order
    assert pd.api.types.is_datetime64_any_dtype(read.raw["submit_time"])
    assert all(pd.api.types.is_integer_dtype(read.raw[c]) for c in ("gpu_num", "cpu_num", "duration"))
    assert set(read.raw["vc"]) == {"seren"} and read.dropped["vc"] == 0
    assert set(meta["substituted_columns"]) == {"vc", "jobname"} and "naive UTC" in meta["time_rule"]
    types = warehouse_rows(fixture_warehouse, "select distinct job_type from marts.dim_job_type")
    assert set(read.raw["jobname"]) <= {t for (t,) in types}  # jobname: the job type
    expected = jobs_of(
        fixture_warehouse,
        "strftime(submit_time_utc, '%Y-%m-%d %H:%M:%S'), cast(round(coalesce(run_s, reported_duration_s)) "
        "as bigint), gpu_num",
        f"c.cluster_name = 'seren' and {IN_2023} and coalesce(run_s, reported_duration_s) is not null "
        "order by submit_time_utc, job_id",
    )
    written = [
        (t.strftime("%Y-%m-%d %H:%M:%S"), d, g)
        for t, d, g in read.raw[["submit_time", "duration", "gpu_num"]].itertuples(index=False)
    ]
    assert written == expected and len(written) == meta["rows"] > 0
    # each count the sidecar gives equals what the reader's own rules drop from the written file
    effects = {
        e["reason"].split(" (")[0]: e["rows"]
        for e in meta["consumer_effects"]
        if e["consumer"] == meta["consumer"]
    }
    assert effects.get("it keeps GPU jobs only", 0) == read.dropped["gpu"]
    assert sum(v for k, v in effects.items() if "fixed trace start" in k) == read.dropped["start"]
    assert sum(v for k, v in effects.items() if "'Sept' experiment" in k) == read.dropped["range"]
    assert read.dropped["range"] > 0  # a 2023 file sits outside the Sept 2020 slice as the reader counts it
    # with the range and start edited to the window (the effect's lift), every GPU job is read
    start = str(read.raw["submit_time"].min())
    opened = helios_trace(path, vcs={"seren"}, date_range=(start, "2024-01-01 00:00:00"), start=start)
    assert len(opened.jobs) == meta["rows"] - read.dropped["gpu"] and opened.dropped["range"] == 0


def test_helios_submit_times_follow_speed(fixture_warehouse: Settings, tmp_path: Path) -> None:
    normal, _ = run(fixture_warehouse, tmp_path, "helios", window=YEAR_2023, cluster="kalos")
    fast, _ = run(fixture_warehouse, tmp_path, "helios", window=YEAR_2023, cluster="kalos", speed=2)
    start = "2023-01-01 00:00:00"
    slow = helios_trace(normal, vcs={"kalos"}, date_range=(start, "2024-01-01"), start=start).jobs
    quick = helios_trace(fast, vcs={"kalos"}, date_range=(start, "2024-01-01"), start=start).jobs
    assert len(slow) > 1 and list(quick["duration"]) == list(slow["duration"])
    assert list(quick["submit_time"]) == pytest.approx(list(slow["submit_time"] / 2), abs=1)


def test_job_exports_count_the_jobs_left_out(fixture_warehouse: Settings, tmp_path: Path) -> None:
    _, meta = run(fixture_warehouse, tmp_path, "acme-jobs", window=YEAR_2023)
    unclocked = jobs_of(fixture_warehouse, "c.cluster_name, count(*)", "submit_time_utc is null group by 1")
    assert unclocked and all(n > 0 for _, n in unclocked)
    for cluster, n in unclocked:
        (e,) = effects_by_reason(meta, f"{cluster} jobs have no absolute submit time")
        assert (e["effect"], e["rows"]) == ("drops", n)
    (running,) = jobs_of(
        fixture_warehouse, "count(*)", f"{IN_2023} and coalesce(run_s, reported_duration_s) is null"
    )[0]
    (e,) = effects_by_reason(meta, "still RUNNING")
    assert e["rows"] == running == meta["rows_in_window"] - meta["rows"]
    clusters, days = jobs_of(
        fixture_warehouse,
        "count(distinct c.cluster_name), date_diff('day', min(submit_time_utc), max(submit_time_utc))",
        f"{IN_2023} and coalesce(run_s, reported_duration_s) is not null",
    )[0]
    (e,) = effects_by_reason(meta, "share one submit clock")
    assert clusters > 1 and f"{clusters} clusters" in e["reason"] and f"spanning {days:,} days" in e["reason"]
    assert e["lift"] == "--cluster NAME" and e["rows"] == meta["rows"]
    _, one = run(fixture_warehouse, tmp_path, "acme-jobs", window=YEAR_2023, cluster="seren")
    assert not effects_by_reason(one, "share one submit clock") and not effects_by_reason(one, "no absolute")


def test_pai_gets_a_true_answer(fixture_warehouse: Settings, tmp_path: Path) -> None:
    (pai,) = jobs_of(fixture_warehouse, "count(*)", "c.cluster_name = 'pai'")[0]
    for name in ("acme-jobs", "helios"):
        with pytest.raises(ExportError) as err:
            export(fixture_warehouse, ExportRequest(name, cluster="pai", out=tmp_path / "pai.csv"))
        assert f"{pai:,} pai jobs have no absolute submit time" in str(err.value)
        assert "seconds since the start of PAI's own trace" in str(err.value)
    # the relative seconds the message points to are there, one per PAI job
    offsets = "select count(submit_offset_s) from staging.stg_acme__pai_jobs"
    assert "staging.stg_acme__pai_jobs.submit_offset_s" in str(err.value)
    assert warehouse_rows(fixture_warehouse, offsets)[0][0] == pai
    with pytest.raises(ExportError, match="helios writes one cluster's trace: pass --cluster"):
        export(fixture_warehouse, ExportRequest("helios", out=tmp_path / "all.csv"))


@pytest.mark.parametrize("name", list(FORMATS))
def test_the_same_window_gives_the_same_bytes(fixture_warehouse: Settings, tmp_path: Path, name: str) -> None:
    cluster = {"cluster": "seren"} if FORMATS[name].one_cluster else {}
    a, meta_a = run(fixture_warehouse, tmp_path, name, speed=1.5, **cluster)
    b, meta_b = run(fixture_warehouse, tmp_path, name, speed=1.5, **cluster)
    assert a.read_bytes() == b.read_bytes() and meta_a["sha256"] == meta_b["sha256"]
    assert {k: v for k, v in meta_a.items() if k != "file"} == {
        k: v for k, v in meta_b.items() if k != "file"
    }


def test_speed_2_halves_inter_arrival_times(fixture_warehouse: Settings, tmp_path: Path) -> None:
    normal, _ = run(fixture_warehouse, tmp_path, "vidur", window=FILE_1)
    fast, meta = run(fixture_warehouse, tmp_path, "vidur", window=FILE_1, speed=2)
    slow_times = [r.arrived_at for r in vidur_trace(normal)[0]]
    fast_times = [r.arrived_at for r in vidur_trace(fast)[0]]
    gaps = [b - a for a, b in pairwise(slow_times)]
    fast_gaps = [b - a for a, b in pairwise(fast_times)]
    assert fast_gaps == pytest.approx([g / 2 for g in gaps]) and max(gaps) > 0
    assert meta["speed"] == 2
    moon, _ = run(fixture_warehouse, tmp_path, "mooncake", window=FILE_1)
    moon_fast, _ = run(fixture_warehouse, tmp_path, "mooncake", window=FILE_1, speed=2)
    ms = [t["timestamp"] for t in aiperf_mooncake(moon)]
    ms_fast = [t["timestamp"] for t in aiperf_mooncake(moon_fast)]
    assert ms_fast == [round(t / 2) for t in ms]  # whole seconds upstream: halves are exact in ms
    same = [(t["input_length"], t["output_length"]) for t in aiperf_mooncake(moon)]
    assert same == [(t["input_length"], t["output_length"]) for t in aiperf_mooncake(moon_fast)]


def test_the_sidecar_says_which_rows_are_synthetic(fixture_warehouse: Settings, tmp_path: Path) -> None:
    _, real = run(fixture_warehouse, tmp_path, "burstgpt", window=FILE_1)
    assert (real["data_origin"], real["synthetic_rows"], "synthetic_notice" in real) == ("real", 0, False)
    _, mixed = run(fixture_warehouse, tmp_path, "burstgpt")
    assert (mixed["data_origin"], mixed["real_rows"], mixed["synthetic_rows"]) == ("mixed", 400, 2)
    assert mixed["synthetic_notice"].startswith("SYNTHETIC: 2 of 402 rows")
    _, synthetic = run(fixture_warehouse, tmp_path, "mooncake", window=("19440000", "end"))
    assert (synthetic["data_origin"], synthetic["rows"]) == ("synthetic", 1)


def test_clear_errors(fixture_warehouse: Settings, tmp_path: Path) -> None:
    cases = {
        "unknown --model 'GPT-5': the warehouse has ChatGPT, GPT-4": ExportRequest("burstgpt", model="GPT-5"),
        "unknown --log-type 'chat'": ExportRequest("vidur", log_type="chat"),
        "no requests in the window [1.0, 2.0)": ExportRequest("vidur", window=("1", "2")),
        "needs BURSTGPT_START_DATE": ExportRequest("vidur", window=("2024-01-01", "+1h")),
        "is not after its start": ExportRequest("vidur", window=("10", "5")),
        "unknown export format 'csv'": ExportRequest("csv"),
        "--speed must be a positive number": ExportRequest("vidur", speed=0),
        "--model and --log-type apply to request formats": ExportRequest("acme-jobs", model="GPT-4"),
        "unknown --cluster 'nowhere'": ExportRequest("acme-jobs", cluster="nowhere"),
    }
    for message, request in cases.items():
        with pytest.raises(ExportError, match=re.escape(message)):
            export(fixture_warehouse, ExportRequest(**{**request.__dict__, "out": tmp_path / "x.csv"}))
    assert not (tmp_path / "x.csv").exists()
    nothing = load_settings({"WAREHOUSE_DIR": str(tmp_path / "none")})
    with pytest.raises(ExportError, match="does not exist yet: run `make run`"):
        export(nothing, ExportRequest("vidur"))
    assert not nothing.warehouse_dir.exists()
    unbuilt = load_settings({"WAREHOUSE_DIR": str(tmp_path / "unbuilt")})
    unbuilt.warehouse_dir.mkdir()
    duckdb.connect(str(unbuilt.duckdb_path)).close()  # a database without marts (dbt never ran)
    with pytest.raises(ExportError, match=r"marts\.fct_request is not built yet"):
        export(unbuilt, ExportRequest("vidur"))


def test_iso_windows_with_burstgpt_start_date(fixture_warehouse: Settings, tmp_path: Path) -> None:
    dated = load_settings({"WAREHOUSE_DIR": str(tmp_path / "dated"), "BURSTGPT_START_DATE": "2023-05-01"})
    dated.warehouse_dir.mkdir()
    shutil.copyfile(fixture_warehouse.duckdb_path, dated.duckdb_path)
    _, meta = run(dated, tmp_path, "vidur", window=("2023-05-01T01:00", "2023-05-01T09:00+08:00"))
    assert (meta["window"]["start"], meta["window"]["end"]) == (3600.0, 3600.0 * 9)
    assert (
        meta["rows_in_window"]
        == window_totals(fixture_warehouse, "timestamp_s >= 3600 and timestamp_s < 32400")[0]
    )


def test_assets_write_the_exports_on_demand(fixture_warehouse: Settings, tmp_path: Path) -> None:
    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path / "warehouse")})
    settings.warehouse_dir.mkdir()
    shutil.copyfile(fixture_warehouse.duckdb_path, settings.duckdb_path)
    assets = export_assets()
    for asset in assets:
        (key,) = asset.keys
        assert asset.group_names_by_key[key] == EXPORT_GROUP and not any(
            asset.automation_conditions_by_key.values()
        )
        fmt = FORMATS[key.path[-1]]
        assert set(asset.asset_deps[key]) == {dg.AssetKey(["marts", m]) for m in fmt.marts}
    with dg.instance_for_test() as instance:
        result = dg.materialize(assets, instance=instance, resources={SETTINGS: settings})
    assert result.success
    metadata = {
        e.asset_key: {k: v.value for k, v in e.materialization.metadata.items()}
        for e in result.get_asset_materialization_events()
    }
    burst = metadata[export_key("burstgpt")]  # default: the first hour of requests
    assert burst["path"] == str(settings.exports_dir / "burstgpt.csv")
    assert (burst["window_start"], burst["window_end"]) == ("5.0", "3605.0")
    assert burst["rows"] == window_totals(fixture_warehouse, "timestamp_s >= 5 and timestamp_s < 3605")[0]
    jobs = metadata[export_key("acme-jobs")]  # default: Seren's first day
    helios = metadata[export_key("helios")]
    sidecar = json.loads(
        (settings.exports_dir / "helios_cluster_log.csv.meta.json").read_text(encoding="utf-8")
    )
    assert helios["consumer_effects"] == sidecar["consumer_effects"] and helios["consumer_effects"]
    assert jobs["rows"] == 2 and jobs["data_origin"] == "real"
    assert "Timestamp,Model" in str(burst["preview"])
    for fmt in FORMATS.values():
        assert (settings.exports_dir / fmt.file_name).exists()
        assert (settings.exports_dir / f"{fmt.file_name}.meta.json").exists()


def test_exports_are_not_in_the_default_run(fixture_warehouse: Settings) -> None:
    from pipelines.definitions import build_definitions
    from pipelines.defs.automation import EVERYTHING

    graph = build_definitions(fixture_warehouse).resolve_asset_graph()
    everything = EVERYTHING.resolve(graph)
    assert not {export_key(name) for name in FORMATS} & everything
    assert dg.AssetKey(["marts", "fct_request"]) in everything


def test_the_cli_warns_of_each_effect(
    fixture_warehouse: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    from pipelines.cli import main

    monkeypatch.setenv("WAREHOUSE_DIR", str(fixture_warehouse.warehouse_dir))
    out = tmp_path / "jobs.csv"
    assert main(["export", "acme-jobs", "--window", *YEAR_2023, "--out", str(out)]) == 0
    printed = capsys.readouterr()
    meta = json.loads(out.with_name(out.name + ".meta.json").read_text(encoding="utf-8"))
    warnings = [line for line in printed.err.splitlines() if line.startswith("warning: ")]
    assert printed.out.startswith("wrote ") and len(warnings) == len(meta["consumer_effects"]) >= 3
    assert any("pai jobs have no absolute submit time" in w for w in warnings)
    assert any("share one submit clock" in w and "to change it: --cluster NAME" in w for w in warnings)
    assert main(["export", "acme-jobs", "--cluster", "pai", "--out", str(out)]) == 1
    assert "pai jobs have no absolute submit time" in capsys.readouterr().err
