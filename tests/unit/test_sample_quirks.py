"""One test per documented quirk (DATASETS.md): each reads the generated default sample's CSV files."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from itertools import pairwise
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipelines.families.registry import fixed_files
from pipelines.families.upstream import (
    DCGM_METRICS,
    HF_MIRROR_PREFIX,
    PROMETHEUS_METRICS,
    discover_utilization,
)
from pipelines.sample import DEFAULT_SCALE, generate_sample

REAL = Path(__file__).resolve().parents[2] / "pipelines" / "sample" / "real"
UTIL = HF_MIRROR_PREFIX + "data/utilization"
SEREN_TIME = re.compile(r"^2023-0[3-9]-\d\d \d\d:\d\d:\d\d\+08:00$")
KALOS_TIME = re.compile(r"^2023-0[5-9]-\d\d \d\d:\d\d:\d\d\+00:00$")
UTIL_TIME = re.compile(r"^2023-07-\d\d \d\d:\d\d:\d\d\+08:00$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
FLOAT_INT = re.compile(r"^\d+\.0$")


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sample")
    generate_sample(out)
    return out


def fixed(mirror: Path, file_name: str) -> Path:
    (match,) = [f for f in fixed_files() if f.file_name == file_name]
    return mirror / match.mirror_path


def rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def entry(mirror: Path, path: Path) -> dict:
    doc = json.loads((mirror / "MANIFEST.json").read_text())
    return doc["files"][path.relative_to(mirror).as_posix()]


def ts(text: str) -> pd.Timestamp:
    return pd.Timestamp(text)


def seconds(a: str, b: str) -> int:
    return int((ts(b) - ts(a)).total_seconds())


def metric_frame(mirror: Path, cluster: str, metric: str) -> pd.DataFrame:
    """A metric's wide frame, concatenating split pieces the way the catalog discovers them."""
    listing = [p.relative_to(mirror / HF_MIRROR_PREFIX).as_posix() for p in (mirror / UTIL).rglob("*.csv")]
    files = [f for f in discover_utilization(listing).files if f.cluster == cluster and f.metric == metric]
    assert files, f"no {cluster} {metric} file"
    return pd.concat([pd.read_csv(mirror / f.mirror_path) for f in files], ignore_index=True)


def util_path(mirror: Path, cluster: str, metric: str) -> Path:
    return mirror / UTIL / cluster / f"{metric}.csv"


# --- Seren jobs ------------------------------------------------------------------------------------


def test_seren_has_13_columns_and_real_readme_rows_as_lines_2_3(mirror: Path) -> None:
    path = fixed(mirror, "trace_seren.csv")
    header, _ = rows(path)
    assert header == [
        "job_id", "user", "node_num", "gpu_num", "cpu_num", "type", "state",
        "submit_time", "start_time", "end_time", "duration", "queue", "gpu_time",
    ]  # fmt: skip
    assert lines(path)[1:3] == lines(REAL / "acmetrace_seren_readme_rows.csv")[1:3]
    assert entry(mirror, path)["real_lines"] == [[2, 3]]


def test_seren_integer_ids_and_plus_8_timestamps(mirror: Path) -> None:
    _, data = rows(fixed(mirror, "trace_seren.csv"))
    assert all(r["job_id"].isdigit() for r in data)
    assert len({r["job_id"] for r in data}) == len(data)
    assert all(SEREN_TIME.match(r[c]) for r in data for c in ("submit_time", "start_time", "end_time"))
    assert all(re.fullmatch(r"u\d{4}", r["user"]) for r in data)


def test_seren_rows_follow_documented_duration_queue_gpu_time(mirror: Path) -> None:
    _, data = rows(fixed(mirror, "trace_seren.csv"))
    assert len(data) == round(DEFAULT_SCALE * 818_327)
    for r in data:
        assert int(r["duration"]) == seconds(r["start_time"], r["end_time"])
        assert int(r["queue"]) == seconds(r["submit_time"], r["start_time"])
        assert FLOAT_INT.match(r["gpu_time"]), r["gpu_time"]
        assert float(r["gpu_time"]) == int(r["duration"]) * int(r["gpu_num"])
    assert data[0]["gpu_time"] == "936.0"


def test_seren_types_and_states_include_rare_timeout_and_node_fail(mirror: Path) -> None:
    _, data = rows(fixed(mirror, "trace_seren.csv"))
    assert {r["type"] for r in data} == {"Eval", "Pretrain", "SFT", "MLLM", "Debug", "Other"}
    states = Counter(r["state"] for r in data)
    assert set(states) == {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL"}
    assert 0 < states["TIMEOUT"] + states["NODE_FAIL"] < 0.02 * len(data)
    gpu = [r for r in data if int(r["gpu_num"]) > 0]
    eval_share = sum(r["type"] == "Eval" for r in gpu) / len(gpu)
    assert 0.6 < eval_share < 0.7  # published 64.9 %


def test_seren_cpu_only_jobs_and_gpu_number_shape(mirror: Path) -> None:
    _, data = rows(fixed(mirror, "trace_seren.csv"))
    cpu_only = [r for r in data if r["gpu_num"] == "0"]
    assert 0.35 < len(cpu_only) / len(data) < 0.55  # 1 − 450,590 / 818,327 = 0.449
    assert all(r["gpu_time"] == "0.0" for r in cpu_only)
    gpus = np.array([int(r["gpu_num"]) for r in data if r["gpu_num"] != "0"])
    assert np.median(gpus) == 1 and (gpus == 1).mean() > 0.5
    assert gpus.max() == 1024


def test_seren_submit_times_march_to_august_with_median_queue_1s(mirror: Path) -> None:
    _, data = rows(fixed(mirror, "trace_seren.csv"))
    months = {r["submit_time"][:7] for r in data}
    assert months == {f"2023-0{m}" for m in range(3, 9)}
    queue = [int(r["queue"]) for r in data if r["gpu_num"] != "0"]
    assert np.median(queue) == 1


# --- Kalos jobs ------------------------------------------------------------------------------------


def test_kalos_has_17_columns_and_real_readme_rows_as_lines_2_3(mirror: Path) -> None:
    path = fixed(mirror, "trace_kalos.csv")
    header, data = rows(path)
    assert len(header) == 17 and header[5:7] == ["mem_per_pod_GB", "shared_mem_per_pod"]
    assert header[11:14] == ["end_time", "fail_time", "stop_time"]
    assert lines(path)[1:3] == lines(REAL / "acmetrace_kalos_readme_rows.csv")[1:3]
    assert len(data) == round(DEFAULT_SCALE * 62_413)


def test_kalos_string_ids_and_utc_timestamps(mirror: Path) -> None:
    _, data = rows(fixed(mirror, "trace_kalos.csv"))
    assert all(re.fullmatch(r"[0-9a-z]{16}", r["job_id"]) for r in data)
    assert len({r["job_id"] for r in data}) == len(data)
    assert all(KALOS_TIME.match(r["submit_time"]) and KALOS_TIME.match(r["start_time"]) for r in data)


def test_kalos_duration_is_end_minus_submit_on_every_row(mirror: Path) -> None:
    _, data = rows(fixed(mirror, "trace_kalos.csv"))
    finished = [r for r in data if r["state"] != "RUNNING"]
    for r in finished:
        assert int(r["duration"]) == seconds(r["submit_time"], r["end_time"])
        assert float(r["gpu_time"]) == int(r["duration"]) * int(r["gpu_num"])
    assert data[0]["duration"] == "18" and data[0]["gpu_time"] == "1152.0"
    # end − submit differs from end − start wherever a job queued
    assert sum(int(r["duration"]) != seconds(r["start_time"], r["end_time"]) for r in finished) > 50


def test_kalos_fail_time_only_on_failed_and_stop_time_only_on_cancelled(mirror: Path) -> None:
    _, data = rows(fixed(mirror, "trace_kalos.csv"))
    states = Counter(r["state"] for r in data)
    assert states["FAILED"] > 5 and states["CANCELLED"] >= 1
    for r in data:
        assert (r["fail_time"] != "") == (r["state"] == "FAILED")
        assert (r["stop_time"] != "") == (r["state"] == "CANCELLED")
        if r["fail_time"] or r["stop_time"]:
            assert (r["fail_time"] or r["stop_time"]) == r["end_time"]


def test_kalos_queue_and_shared_mem_print_as_floats(mirror: Path) -> None:
    _, data = rows(fixed(mirror, "trace_kalos.csv"))
    assert all(re.fullmatch(r"\d+\.\d+", r["queue"]) for r in data)
    assert all(re.fullmatch(r"\d+\.\d+", r["shared_mem_per_pod"]) for r in data)
    assert all(r["mem_per_pod_GB"].isdigit() for r in data)
    assert all(float(r["queue"]) == seconds(r["submit_time"], r["start_time"]) for r in data)


def test_kalos_types_include_a_few_sft_and_cpu_only_jobs(mirror: Path) -> None:
    _, data = rows(fixed(mirror, "trace_kalos.csv"))
    types = Counter(r["type"] for r in data)
    assert set(types) == {"Eval", "Pretrain", "Debug", "Other", "SFT"}
    assert 0 < types["SFT"] <= 3
    assert sum(r["gpu_num"] == "0" for r in data) > len(data) / 2  # 42,506 of 62,413 are CPU-only


def test_kalos_exactly_three_running_rows_with_empty_end(mirror: Path) -> None:
    path = fixed(mirror, "trace_kalos.csv")
    _, data = rows(path)
    running = [r for r in data if r["state"] == "RUNNING"]
    assert len(running) == 3
    assert all(r["end_time"] == r["duration"] == r["gpu_time"] == "" for r in running)
    assert all(r["start_time"] and r["queue"] for r in running)
    assert "assumed" in entry(mirror, path)["note"]


# --- cluster summary and previous-work traces ------------------------------------------------------


def test_cluster_summary_is_the_real_file(mirror: Path) -> None:
    path = fixed(mirror, "cluster_summary.csv")
    assert path.read_bytes() == (REAL / "acmetrace_cluster_summary.csv").read_bytes()
    assert entry(mirror, path)["origin"] == "real"


@pytest.mark.parametrize("name", ["helios_trace.csv", "philly_trace.csv", "pai_trace.csv"])
def test_previous_work_headers_hold_notebook_names_and_are_marked_unverified(mirror: Path, name: str) -> None:
    path = fixed(mirror, name)
    header, data = rows(path)
    needed = {"plan_cpu", "plan_gpu", "wait_time", "status", "duration"} if name == "pai_trace.csv" else {
        "duration", "gpu_num", "queue", "state"}  # fmt: skip
    assert needed <= set(header)
    assert len(data) >= 40
    meta = entry(mirror, path)
    assert meta["unverified_layout"] is True and "assumed" in meta["note"].lower()


def test_previous_work_times_states_and_fractional_pai_gpus(mirror: Path) -> None:
    _, helios = rows(fixed(mirror, "helios_trace.csv"))
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", r["submit_time"]) for r in helios)
    _, philly = rows(fixed(mirror, "philly_trace.csv"))
    assert {r["state"] for r in philly} == {"Pass", "Failed", "Killed"}
    _, pai = rows(fixed(mirror, "pai_trace.csv"))
    plan_gpu = [float(r["plan_gpu"]) for r in pai if r["plan_gpu"]]
    assert any(v < 100 for v in plan_gpu) and any(v >= 100 for v in plan_gpu)
    assert any(r["plan_gpu"] == "" for r in pai)
    assert "Failed" in {r["status"] for r in pai}


# --- BurstGPT --------------------------------------------------------------------------------------

BURST = {k: f"BurstGPT_{k}.csv" for k in (1, 2, 3)} | {
    -k: f"BurstGPT_without_fails_{k}.csv" for k in (1, 2, 3)
}
V1_HEADER = ["Timestamp", "Model", "Request tokens", "Response tokens", "Total tokens", "Log Type"]


def test_burstgpt_release_paths_and_headers(mirror: Path) -> None:
    for k, name in BURST.items():
        path = fixed(mirror, name)
        assert f"/releases/download/{'v2.0' if abs(k) == 3 else 'v1.1'}/{name}" in path.as_posix()
        header, _ = rows(path)
        expected = [V1_HEADER[0], "Session ID", "Elapsed time", *V1_HEADER[1:]] if abs(k) == 3 else V1_HEADER
        assert header == expected


def test_burstgpt_1_starts_with_400_real_rows_then_continues_the_clock(mirror: Path) -> None:
    path = fixed(mirror, "BurstGPT_1.csv")
    assert lines(path)[:401] == lines(REAL / "burstgpt_1_first400.csv")
    assert entry(mirror, path) | {"bytes": 0, "sha256": ""} == {
        "bytes": 0, "sha256": "", "origin": "mixed", "real_lines": [[2, 401]]}  # fmt: skip
    _, data = rows(path)
    stamps = [int(r["Timestamp"]) for r in data]  # integers
    assert stamps[399] == 37_274 and len(stamps) == round(DEFAULT_SCALE * 1_429_737)
    assert all(b >= a for a, b in pairwise(stamps[399:]))


def test_burstgpt_2_continues_file_1_and_file_3_starts_at_19440110(mirror: Path) -> None:
    _, one = rows(fixed(mirror, "BurstGPT_1.csv"))
    _, two = rows(fixed(mirror, "BurstGPT_2.csv"))
    _, three = rows(fixed(mirror, "BurstGPT_3.csv"))
    assert int(two[0]["Timestamp"]) == 5_270_414 >= int(one[-1]["Timestamp"])
    assert int(two[-1]["Timestamp"]) == 10_454_395
    assert three[0]["Timestamp"] == "19440110.0"
    assert all(FLOAT_INT.match(r["Timestamp"]) for r in three)
    stamps = [float(r["Timestamp"]) for r in three]
    assert stamps == sorted(stamps)


def test_burstgpt_3_session_id_uuid_on_conversations_empty_on_api_rows(mirror: Path) -> None:
    _, data = rows(fixed(mirror, "BurstGPT_3.csv"))
    api = [r for r in data if r["Log Type"] == "API log"]
    conversation = [r for r in data if r["Log Type"] == "Conversation log"]
    assert api and conversation
    assert all(r["Session ID"] == "" for r in api)
    assert all(UUID.match(r["Session ID"]) for r in conversation)
    sessions = Counter(r["Session ID"] for r in conversation)
    assert max(sessions.values()) > 1  # a session holds several requests
    elapsed = [int(r["Elapsed time"]) for r in data]
    assert min(elapsed) == 0 and max(elapsed) > 10


@pytest.mark.parametrize("k", [1, 2, 3, -1, -2, -3])
def test_burstgpt_totals_and_failed_rows_are_zero_zero_zero(mirror: Path, k: int) -> None:
    _, data = rows(fixed(mirror, BURST[k]))
    for r in data:
        assert int(r["Total tokens"]) == int(r["Request tokens"]) + int(r["Response tokens"])
    failed = [r for r in data if r["Response tokens"] == "0"]
    assert all(r["Request tokens"] == r["Total tokens"] == "0" for r in failed)
    assert (len(failed) > 0) == (k > 0)


def test_burstgpt_failure_counts_follow_published_rates(mirror: Path) -> None:
    for k, published in ((1, 25_443), (2, 3_858_400 - 3_784_213), (3, 387_963)):
        _, data = rows(fixed(mirror, BURST[k]))
        assert sum(r["Response tokens"] == "0" for r in data) == round(DEFAULT_SCALE * published)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_burstgpt_same_second_and_exact_duplicate_rows_exist(mirror: Path, k: int) -> None:
    path = fixed(mirror, BURST[k])
    data = lines(path)[1:]
    duplicates = len(data) - len(set(data))
    assert duplicates >= 5
    distinct_lines_per_second = Counter(line.split(b",", 1)[0] for line in set(data))
    assert max(distinct_lines_per_second.values()) > 1  # different requests in the same second


@pytest.mark.parametrize("k", [1, 2, 3])
def test_burstgpt_models_and_log_types(mirror: Path, k: int) -> None:
    _, data = rows(fixed(mirror, BURST[-k]))
    models = Counter(r["Model"] for r in data)
    logs = Counter(r["Log Type"] for r in data)
    assert set(models) == {"ChatGPT", "GPT-4"} and set(logs) == {"Conversation log", "API log"}
    published_gpt4 = {1: 215_127 / 1_404_294, 2: 87_349 / 3_784_213, 3: 754_536 / 4_956_058}[k]
    assert abs(models["GPT-4"] / len(data) - published_gpt4) < 0.03


@pytest.mark.parametrize("k", [1, 2, 3])
def test_burstgpt_without_fails_is_full_minus_failed_rows(mirror: Path, k: int) -> None:
    full = lines(fixed(mirror, BURST[k]))
    twin = lines(fixed(mirror, BURST[-k]))
    header = full[0].decode().rstrip("\n").split(",")
    col = header.index("Response tokens")
    kept = [line for line in full[1:] if line.decode().rstrip("\n").split(",")[col] != "0"]
    assert twin[0] == full[0] and twin[1:] == kept
    assert len(kept) < len(full) - 1


def test_burstgpt_without_fails_1_is_mixed_with_383_real_lines(mirror: Path) -> None:
    path = fixed(mirror, "BurstGPT_without_fails_1.csv")
    real = [ln for ln in lines(REAL / "burstgpt_1_first400.csv")[1:] if ln.split(b",")[3] != b"0"]
    assert len(real) == 383
    assert lines(path)[1:384] == real
    meta = entry(mirror, path)
    assert meta["origin"] == "mixed" and meta["real_lines"] == [[2, 384]]


# --- utilization -----------------------------------------------------------------------------------


@pytest.mark.parametrize("cluster", ["seren", "kalos"])
def test_utilization_every_metric_wide_with_ip_columns(mirror: Path, cluster: str) -> None:
    net = r"10\.140\.[01]\.\d+" if cluster == "seren" else r"10\.130\.[01]\.\d+"
    for metric in (*DCGM_METRICS, *PROMETHEUS_METRICS):
        frame = metric_frame(mirror, cluster, metric)
        columns = list(frame.columns)
        assert columns[0] == "Time"
        if metric in PROMETHEUS_METRICS:
            ips = [c for c in columns[1:] if re.fullmatch(net, c)]
            assert len(ips) == 4
        elif (cluster, metric) != ("kalos", "SM_ACTIVE"):
            assert all(re.fullmatch(net + r"-[0-7]", c) for c in columns[1:])
            assert len(columns) == 1 + 4 * 8


@pytest.mark.parametrize("cluster", ["seren", "kalos"])
def test_utilization_time_is_plus_8_every_15s_from_2023_07_19(mirror: Path, cluster: str) -> None:
    frame = metric_frame(mirror, cluster, "GPU_TEMP")
    times = frame["Time"].drop_duplicates()
    assert all(UTIL_TIME.match(t) for t in times)
    assert times.iloc[0] == "2023-07-19 00:00:00+08:00" and times.iloc[-1] == "2023-07-20 00:00:00+08:00"
    steps = pd.to_datetime(times).diff().dropna().dt.total_seconds()
    assert set(steps) == {15.0}


def test_seren_node_memory_spurious_dot_1_column_inside_quirk_window(mirror: Path) -> None:
    frame = pd.read_csv(util_path(mirror, "seren", "NODE_MEMORY_UTILIZATION"))
    assert "10.140.0.131.1" in frame.columns and "10.140.0.131" in frame.columns
    local = pd.to_datetime(frame["Time"]).dt.tz_convert("Asia/Shanghai")
    inside = (local >= pd.Timestamp("2023-07-19 11:35", tz="Asia/Shanghai")) & (
        local < pd.Timestamp("2023-07-19 14:01", tz="Asia/Shanghai"))  # fmt: skip
    assert inside.sum() == 584  # 146 minutes of 15-s samples
    blank_row = frame.drop(columns="Time").isna().all(axis=1)
    assert frame.loc[inside & ~blank_row, "10.140.0.131.1"].notna().all()
    assert frame.loc[inside, "10.140.0.131"].isna().all()
    assert frame.loc[~inside, "10.140.0.131.1"].isna().all()
    assert frame.loc[~inside & ~blank_row, "10.140.0.131"].notna().all()


@pytest.mark.parametrize("cluster", ["seren", "kalos"])
def test_utilization_duplicate_time_rows_are_identical_lines(mirror: Path, cluster: str) -> None:
    for metric in ("GPU_TEMP", "NODE_MEMORY_UTILIZATION"):
        data = lines(util_path(mirror, cluster, metric))[1:]
        repeated = [a for a, b in pairwise(data) if a == b]
        assert len(repeated) >= 2
        frame = pd.read_csv(util_path(mirror, cluster, metric))
        assert frame["Time"].duplicated().sum() == len(repeated)


@pytest.mark.parametrize("cluster", ["seren", "kalos"])
def test_utilization_all_empty_row_and_all_empty_column(mirror: Path, cluster: str) -> None:
    frame = pd.read_csv(util_path(mirror, cluster, "POWER_USAGE"))
    values = frame.drop(columns="Time")
    empty_rows = frame[values.isna().all(axis=1)]
    assert len(empty_rows) == 1 and UTIL_TIME.match(empty_rows["Time"].iloc[0])
    assert values.isna().all(axis=0).sum() == 1
    ib = pd.read_csv(util_path(mirror, cluster, "NODE_IB_SEND")).drop(columns="Time")
    assert ib.isna().all(axis=0).sum() == 1


@pytest.mark.parametrize("cluster", ["seren", "kalos"])
def test_idle_gpus_are_empty_profiling_cells_where_gpu_util_is_zero(mirror: Path, cluster: str) -> None:
    util = metric_frame(mirror, cluster, "GPU_UTIL").drop_duplicates("Time").set_index("Time")
    active = metric_frame(mirror, cluster, "SM_ACTIVE").drop_duplicates("Time").set_index("Time")
    active.columns = util.columns  # Kalos names SM_ACTIVE columns by pod; same GPU order
    live = util.notna().any(axis=1)
    u, a = util[live].iloc[:, :-1], active[live].iloc[:, :-1]  # skip the all-empty row and column
    assert ((u == 0) == a.isna()).all().all()
    assert 0.1 < a.isna().to_numpy().mean() < 0.45


def test_seren_gpu_util_is_bimodal_with_31_percent_zeros_and_median_99(mirror: Path) -> None:
    values = metric_frame(mirror, "seren", "GPU_UTIL").drop(columns="Time").to_numpy().ravel()
    values = values[~np.isnan(values)]
    assert 0.24 < (values == 0).mean() < 0.38
    assert np.median(values) == 99
    assert ((values > 0) & (values < 90)).mean() < (values >= 99).mean()


def test_node_cpu_medians_and_kalos_values_above_100(mirror: Path) -> None:
    seren = metric_frame(mirror, "seren", "NODE_CPU_UTILIZATION").drop(columns="Time").to_numpy().ravel()
    kalos = metric_frame(mirror, "kalos", "NODE_CPU_UTILIZATION").drop(columns="Time").to_numpy().ravel()
    seren, kalos = seren[~np.isnan(seren)], kalos[~np.isnan(kalos)]
    assert 6.0 < np.median(seren) < 10.0 and seren.max() <= 100
    assert 16.0 < np.median(kalos) < 24.0
    assert (kalos > 100).sum() >= 5 and kalos.max() == pytest.approx(238.9)


def test_kalos_sm_active_uses_pod_names_as_columns(mirror: Path) -> None:
    columns = list(pd.read_csv(util_path(mirror, "kalos", "SM_ACTIVE"), nrows=1).columns)
    assert "lingjun-pod9-0016-3" in columns
    assert all(re.fullmatch(r"lingjun-pod9-\d{4}-[0-7]", c) for c in columns[1:])


def test_kalos_dram_active_is_header_only(mirror: Path) -> None:
    data = lines(util_path(mirror, "kalos", "DRAM_ACTIVE"))
    assert len(data) == 1 and data[0].startswith(b"Time,10.130.")


def test_split_metric_pieces_by_date_without_a_whole_file(mirror: Path) -> None:
    for cluster in ("seren", "kalos"):
        folder = mirror / UTIL / cluster
        pieces = sorted(p.name for p in folder.glob("*-2023-*.csv"))
        assert len(pieces) >= 2
        metric = pieces[0].split("-2023-")[0]
        assert pieces[:2] == [f"{metric}-2023-07-19.csv", f"{metric}-2023-07-20.csv"]
        assert not (folder / f"{metric}.csv").exists()
        listing = [p.relative_to(mirror / HF_MIRROR_PREFIX).as_posix() for p in folder.glob("*.csv")]
        found = [f.file_name for f in discover_utilization(listing).files if f.metric == metric]
        assert found == pieces[:2]


@pytest.mark.parametrize("cluster", ["seren", "kalos"])
def test_utilization_units_and_ranges(mirror: Path, cluster: str) -> None:
    def values(metric: str) -> np.ndarray:
        v = metric_frame(mirror, cluster, metric).drop(columns="Time").to_numpy(dtype=float).ravel()
        return v[~np.isnan(v)]

    for metric in ("SM_ACTIVE", "SM_OCCUPANCY", "PIPE_TENSOR_ACTIVE", "MEM_COPY_UTIL", "GPU_UTIL"):
        v = values(metric)
        assert v.min() >= 0 and v.max() <= 100 and np.allclose(v, np.round(v, 3))
    power = values("POWER_USAGE")
    assert power.min() > 55 and power.max() < 420 and np.allclose(power, np.round(power, 1))
    assert 25 < values("GPU_TEMP").mean() < 90 and values("MEM_CLOCK").max() == 1593
    assert set(np.unique(values("SM_CLOCK"))) >= {210.0, 1410.0}
    xid = values("XID_ERRORS")
    assert (xid == 0).mean() > 0.99 and (xid > 0).sum() >= 1
    assert np.median(values("NODE_IB_SEND")) > 1e6
    used = metric_frame(mirror, cluster, "FB_USED").drop(columns="Time").to_numpy(dtype=float)
    free = metric_frame(mirror, cluster, "FB_FREE").drop(columns="Time").to_numpy(dtype=float)
    both = ~np.isnan(used) & ~np.isnan(free)
    assert both.sum() > 1000 and (used[both] + free[both] == 81_920).all()


# --- IPMI ------------------------------------------------------------------------------------------


def test_ipmi_files_are_long_per_server_and_marked_unverified(mirror: Path) -> None:
    for name in ("GPU_AB_Power.csv", "GPU_C_Power.csv", "CPU_D_Power.csv"):
        path = fixed(mirror, name)
        header, data = rows(path)
        assert header == ["Time", "IP", "Sys_Total_Power", "CPU_Power", "Memory_Power"]
        servers = {r["IP"] for r in data}
        assert len(data) == len(servers) * (5760 + 1)
        assert all(UTIL_TIME.match(r["Time"]) for r in data[:: len(servers)])
        meta = entry(mirror, path)
        assert meta["unverified_layout"] is True and "IP column" in meta["note"]


def test_ipmi_type_b_servers_have_empty_memory_power(mirror: Path) -> None:
    _, data = rows(fixed(mirror, "GPU_AB_Power.csv"))
    by_ip: dict[str, set[bool]] = {}
    for r in data:
        by_ip.setdefault(r["IP"], set()).add(r["Memory_Power"] == "")
    assert sorted(by_ip.values(), key=sorted) == [{False}, {False}, {True}, {True}]
    assert all(float(r["Sys_Total_Power"]) > 500 for r in data)
