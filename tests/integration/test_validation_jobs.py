"""Job-trace rules (Seren, Kalos, previous work): one small broken input per rule, run through the real loader
and validation. Quarantine rules: the row is in lake/quarantine and quarantine.<family> with its rule and
values; flag rules: the row stays in raw and is not quarantined; duplicates: the extra copies counted."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from pipelines.settings import Settings
from tests.support.validation import (
    KALOS_HEADER,
    SEREN_HEADER,
    assert_reconciled,
    kalos_line,
    lake_quarantine,
    load_csv,
    raw_row_numbers,
    seren_line,
    validate,
    view_quarantine,
)

SEREN = "acme__seren_jobs"
SEREN_FILE = "github/InternLM/AcmeTrace/data/job_trace/trace_seren.csv"
KALOS = "acme__kalos_jobs"


def _seren(warehouse: Settings, tmp_path: Path, *lines: str):
    load_csv(warehouse, tmp_path, "trace_seren.csv", "\n".join([SEREN_HEADER, seren_line(1), *lines]) + "\n")
    return validate(warehouse, SEREN)


QUARANTINE_CASES = [
    pytest.param(
        seren_line(2, cpu_num=-1),
        "counts_not_negative",
        "node_num=1 gpu_num=8 cpu_num=-1 min_count=-1",
        id="negative-count",
    ),
    pytest.param(
        seren_line(2, submit="2023-03-01 00:18:54", start="2023-03-01 00:18:22"),
        "start_not_before_submit",
        "submit_time=2023-02-28 16:18:54 start_time=2023-02-28 16:18:22 start_minus_submit_s=-32.0",
        id="start-before-submit",
    ),
    pytest.param(
        seren_line(2, end="2023-03-01 00:18:30"),
        "end_not_before_start",
        "start_time=2023-02-28 16:18:54 end_time=2023-02-28 16:18:30 end_minus_start_s=-24.0",
        id="end-before-start",
    ),
    pytest.param(
        seren_line(2, queue=40),
        "queue_is_start_minus_submit",
        "queue=40.0 submit_time=2023-02-28 16:18:22 start_time=2023-02-28 16:18:54 queue_delta_s=8.0",
        id="queue",
    ),
    pytest.param(
        seren_line(2, gpu_time=945.0),  # 936 + 9: 1.125 s per GPU
        "gpu_time_is_duration_times_gpu_num",
        "gpu_time=945.0 duration=117.0 gpu_num=8 gpu_time_delta_per_gpu_s=1.125",
        id="gpu-time",
    ),
]


@pytest.mark.parametrize(("line", "rule", "details"), QUARANTINE_CASES)
def test_seren_quarantine_rule(
    warehouse: Settings, tmp_path: Path, line: str, rule: str, details: str
) -> None:
    result = _seren(warehouse, tmp_path, line)
    assert result.findings() == {rule: 1}
    expected = {"_source_file": SEREN_FILE, "_row_number": 3, "rule": rule, "details": details}
    assert [{k: r[k] for k in expected} for r in lake_quarantine(warehouse, SEREN)] == [expected]
    assert view_quarantine(warehouse, SEREN) == [expected]
    assert (result.loaded, result.passed, result.quarantined) == (2, 1, 1)
    assert_reconciled(result)
    check = result.outcomes[rule]
    assert not check.passed and check.rate == 0.5 and check.by_file == {SEREN_FILE: 1}
    assert check.samples == [
        {"_source_file": SEREN_FILE, "_row_number": "3", "_partition": "2023-02", "details": details}
    ]
    assert check.partitions == {"2023-02"}


def test_gpu_time_within_one_second_per_gpu_is_rounding(warehouse: Settings, tmp_path: Path) -> None:
    result = _seren(warehouse, tmp_path, seren_line(2, gpu_time=944.0))  # 936 + 8: exactly 1 s per GPU
    assert result.findings() == {}


def test_missing_job_id_is_quarantined(warehouse: Settings, tmp_path: Path) -> None:
    # The loader rejects an empty job_id (a required column), so the broken Parquet is written directly.
    load_csv(warehouse, tmp_path, "trace_seren.csv", f"{SEREN_HEADER}\n{seren_line(1)}\n{seren_line(2)}\n")
    (part,) = (warehouse.raw_dir / SEREN).glob("_partition=*/*.parquet")
    duckdb.sql(
        f"copy (select * replace (case when _row_number = 3 then null else job_id end as job_id) "
        f"from read_parquet('{part}')) to '{part}.new' (format parquet)"
    )
    Path(f"{part}.new").replace(part)
    result = validate(warehouse, SEREN)
    assert result.findings() == {"job_id_present": 1}
    assert [(r["_row_number"], r["rule"], r["details"]) for r in view_quarantine(warehouse, SEREN)] == [
        (3, "job_id_present", "job_id=null")
    ]
    assert_reconciled(result)


FLAG_CASES = [
    pytest.param(
        seren_line(2, duration=149, gpu_time=1192.0),  # end − submit
        "duration_is_end_minus_start",
        "duration=149.0 submit_time=2023-02-28 16:18:22 start_time=2023-02-28 16:18:54 "
        "end_time=2023-02-28 16:20:51 duration_rule=end_minus_submit",
        "2023-02",
        id="duration-end-minus-submit",
    ),
    pytest.param(seren_line(2, state="RUNNING"), "state_documented", "state=RUNNING", "2023-02", id="state"),
    pytest.param(seren_line(2, type_="Inference"), "type_documented", "type=Inference", "2023-02", id="type"),
    pytest.param(
        seren_line(2, offset="+00:00"),
        "utc_offset_documented",
        "submit_time_utc_offset=+00:00 start_time_utc_offset=+00:00 end_time_utc_offset=+00:00 "
        "utc_offsets=+00:00",
        "2023-03",  # 00:18 +00:00 is March in UTC
        id="utc-offset",
    ),
]


@pytest.mark.parametrize(("line", "rule", "details", "partition"), FLAG_CASES)
def test_seren_flag_rule_keeps_row(
    warehouse: Settings, tmp_path: Path, line: str, rule: str, details: str, partition: str
) -> None:
    result = _seren(warehouse, tmp_path, line)
    assert result.findings() == {rule: 1}
    assert result.outcomes[rule].samples == [
        {"_source_file": SEREN_FILE, "_row_number": "3", "_partition": partition, "details": details}
    ]
    assert raw_row_numbers(warehouse, SEREN) == [2, 3]  # still in raw
    assert view_quarantine(warehouse, SEREN) == []  # and not quarantined
    assert (result.loaded, result.passed, result.quarantined) == (2, 2, 0)


def test_duration_rule_reported_per_cluster(warehouse: Settings, tmp_path: Path) -> None:
    result = _seren(warehouse, tmp_path, seren_line(2, duration=149, gpu_time=1192.0), seren_line(3))
    assert result.outcomes["duration_is_end_minus_start"].breakdown == {
        "end_minus_start": 2,
        "end_minus_submit": 1,
    }


def test_duplicate_job_ids_counted_over_the_whole_family(warehouse: Settings, tmp_path: Path) -> None:
    lines = [
        seren_line(7, submit="2023-04-02 10:00:00", start="2023-04-02 10:00:05", end="2023-04-02 10:01:00"),
        seren_line(7),  # same id, another month (partition)
        seren_line(7, submit="2023-05-01 10:00:00", start="2023-05-01 10:00:01", end="2023-05-01 10:00:03"),
    ]
    result = _seren(warehouse, tmp_path, *lines)
    assert result.findings() == {"job_id_unique": 2}  # three copies of id 7: the first kept, two extra
    dup = result.outcomes["job_id_unique"]
    assert [s["_row_number"] for s in dup.samples] == ["4", "5"]  # line 3 (the first copy) is not counted
    assert raw_row_numbers(warehouse, SEREN) == [2, 3, 4, 5]
    assert view_quarantine(warehouse, SEREN) == []
    assert [p.key for p in result.partitions] == ["2023-02", "2023-04", "2023-05"]
    assert_reconciled(result)


def test_kalos_fail_and_stop_time_only_on_their_states(warehouse: Settings, tmp_path: Path) -> None:
    lines = [
        KALOS_HEADER,
        kalos_line("a" * 16, state="COMPLETED", fail_time="2023-05-17 11:01:16"),
        kalos_line("b" * 16, state="FAILED", stop_time="2023-05-17 11:01:16"),
        kalos_line("c" * 16, state="FAILED", fail_time="2023-05-17 11:01:16"),
    ]
    load_csv(warehouse, tmp_path, "trace_kalos.csv", "\n".join(lines) + "\n")
    result = validate(warehouse, KALOS)
    assert result.findings() == {"fail_time_only_on_failed": 1, "stop_time_only_on_cancelled": 1}
    assert result.outcomes["fail_time_only_on_failed"].samples[0]["_row_number"] == "2"
    assert result.outcomes["stop_time_only_on_cancelled"].samples[0]["details"] == (
        "state=FAILED stop_time=2023-05-17 11:01:16 state_with_stop_time=FAILED"
    )
    assert (result.loaded, result.quarantined) == (3, 0)


def test_kalos_offset_and_undocumented_state(warehouse: Settings, tmp_path: Path) -> None:
    lines = [KALOS_HEADER, kalos_line("a" * 16, offset="+08:00"), kalos_line("b" * 16, state="RUNNING")]
    load_csv(warehouse, tmp_path, "trace_kalos.csv", "\n".join(lines) + "\n")
    result = validate(warehouse, KALOS)
    assert result.findings() == {"utc_offset_documented": 1, "state_documented": 1}
    assert view_quarantine(warehouse, KALOS) == []


HELIOS_HEADER = "job_id,user,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue"
HELIOS_OK = "j1,u1,8,16,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:10,2020-04-01 00:10:10,600,10"


@pytest.mark.parametrize(
    ("line", "rule", "details"),
    [
        (HELIOS_OK.replace(",600,10", ",-5,10"), "duration_not_negative", "duration=-5.0"),
        (
            HELIOS_OK.replace(",8,16,", ",-1,16,"),
            "gpu_num_not_negative",
            "gpu_num=-1.0 plan_gpu=null gpu_count=-1.0",
        ),
        (
            HELIOS_OK.replace(",600,10", ",600,-3"),
            "queue_not_negative",
            "queue=-3.0 wait_time=null queue_s=-3.0",
        ),
    ],
)
def test_previous_work_quarantine_rule(
    warehouse: Settings, tmp_path: Path, line: str, rule: str, details: str
) -> None:
    load_csv(warehouse, tmp_path, "helios_trace.csv", f"{HELIOS_HEADER}\n{HELIOS_OK}\n{line}\n")
    result = validate(warehouse, "acme__helios_jobs")
    assert result.findings() == {rule: 1}
    assert [
        (r["_row_number"], r["rule"], r["details"]) for r in view_quarantine(warehouse, "acme__helios_jobs")
    ] == [(3, rule, details)]
    assert [(p.key, p.loaded, p.passed, p.quarantined) for p in result.partitions] == [("all", 2, 1, 1)]


def test_pai_named_columns_checked_unknown_columns_carried(warehouse: Settings, tmp_path: Path) -> None:
    header = "job_name,task_name,plan_cpu,plan_gpu,wait_time,status,duration,gpu_type"
    lines = [
        "j1,worker,600,50,3,Terminated,100,V100",
        "j2,worker,600,-50,3,Terminated,100,V100",  # negative GPUs
        "j3,ps,600,,-1,Failed,100,MISC",  # negative wait
        "j4,ps,600,,1,Killed,100,MISC",  # a status the trace is not known to write
    ]
    load_csv(warehouse, tmp_path, "pai_trace.csv", "\n".join([header, *lines]) + "\n")
    result = validate(warehouse, "acme__pai_jobs")
    assert result.findings() == {"gpu_num_not_negative": 1, "queue_not_negative": 1, "state_in_mapped_set": 1}
    assert [(r["_row_number"], r["rule"]) for r in view_quarantine(warehouse, "acme__pai_jobs")] == [
        (3, "gpu_num_not_negative"),
        (4, "queue_not_negative"),
    ]
    assert (
        result.outcomes["state_in_mapped_set"].samples[0]["details"]
        == "state=null status=Killed job_state=Killed"
    )
    assert (result.loaded, result.passed, result.quarantined) == (4, 2, 2)
