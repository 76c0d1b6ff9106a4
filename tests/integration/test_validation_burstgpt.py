"""BurstGPT rules, each with a small broken input: token arithmetic (quarantine), failures, time order,
unknown values, file 3's Session ID, and the without-fails twins (cross-file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.settings import Settings
from tests.support.validation import (
    BURST3_HEADER,
    BURST_HEADER,
    assert_reconciled,
    lake_quarantine,
    load_csv,
    raw_row_numbers,
    validate,
    view_quarantine,
)

REQ = "burstgpt__requests"
TWINS = "burstgpt__requests_without_fails"
FILE_1 = "github/HPMLL/BurstGPT/releases/download/v1.1/BurstGPT_1.csv"
OK = "5,ChatGPT,472,18,490,Conversation log"
UUID = "3f2b6a9e-1c4d-4e1a-9a51-1b2c3d4e5f60"


def _file1(warehouse: Settings, tmp_path: Path, *lines: str):
    load_csv(warehouse, tmp_path, "BurstGPT_1.csv", "\n".join([BURST_HEADER, OK, *lines]) + "\n")
    return validate(warehouse, REQ)


@pytest.mark.parametrize(
    ("line", "rule", "details"),
    [
        (
            "6,ChatGPT,1,2,4,API log",
            "total_is_request_plus_response",
            "request_tokens=1 response_tokens=2 total_tokens=4 total_minus_parts=1",
        ),
        (
            "6,ChatGPT,-1,3,2,API log",
            "tokens_not_negative",
            "request_tokens=-1 response_tokens=3 total_tokens=2 min_tokens=-1",
        ),
    ],
)
def test_token_rules_quarantine(
    warehouse: Settings, tmp_path: Path, line: str, rule: str, details: str
) -> None:
    result = _file1(warehouse, tmp_path, line)
    assert result.findings() == {rule: 1}
    expected = {"_source_file": FILE_1, "_row_number": 3, "rule": rule, "details": details}
    assert view_quarantine(warehouse, REQ) == [expected]
    (row,) = lake_quarantine(warehouse, REQ)
    assert row["_partition"] == "0000" and row["rule"] == rule
    assert (result.loaded, result.passed, result.quarantined) == (2, 1, 1)
    assert_reconciled(result)


def test_row_breaking_two_rules_is_quarantined_once_per_rule(warehouse: Settings, tmp_path: Path) -> None:
    result = _file1(warehouse, tmp_path, "6,ChatGPT,-1,3,9,API log")
    assert result.findings() == {"total_is_request_plus_response": 1, "tokens_not_negative": 1}
    assert [r["rule"] for r in view_quarantine(warehouse, REQ)] == [
        "tokens_not_negative",
        "total_is_request_plus_response",
    ]
    assert (result.loaded, result.passed, result.quarantined) == (
        2,
        1,
        1,
    )  # one raw row, two (row, rule) pairs


def test_failed_requests_flagged_per_file_and_kept(warehouse: Settings, tmp_path: Path) -> None:
    load_csv(warehouse, tmp_path, "BurstGPT_1.csv", f"{BURST_HEADER}\n{OK}\n6,ChatGPT,0,0,0,API log\n")
    text2 = f"{BURST_HEADER}\n5270414,GPT-4,10,0,10,API log\n5270415,GPT-4,0,0,0,API log\n5270416,GPT-4,1,1,2,API log\n"
    load_csv(warehouse, tmp_path, "BurstGPT_2.csv", text2)
    result = validate(warehouse, REQ)
    assert result.findings() == {"request_not_failed": 3}
    assert result.outcomes["request_not_failed"].by_file == {
        FILE_1: 1,
        "github/HPMLL/BurstGPT/releases/download/v1.1/BurstGPT_2.csv": 2,
    }
    assert view_quarantine(warehouse, REQ) == []
    assert result.loaded == result.passed == 5


def test_timestamp_going_backwards_within_a_file(warehouse: Settings, tmp_path: Path) -> None:
    # 100 → 50 goes back within day 0; 86500 → 40 goes back across days (rows in different partitions)
    lines = [
        "100,ChatGPT,1,1,2,API log",
        "50,ChatGPT,1,1,2,API log",
        "86500,ChatGPT,1,1,2,API log",
        "40,ChatGPT,1,1,2,API log",
    ]
    result = _file1(warehouse, tmp_path, *lines)
    assert result.findings() == {"timestamp_not_backwards": 2}
    backwards = result.outcomes["timestamp_not_backwards"]
    assert [(s["_row_number"], s["details"]) for s in backwards.samples] == [
        ("4", "timestamp_s=50.0 timestamp_step_s=-50.0"),
        ("6", "timestamp_s=40.0 timestamp_step_s=-86460.0"),
    ]
    assert raw_row_numbers(warehouse, REQ) == [2, 3, 4, 5, 6]
    assert view_quarantine(warehouse, REQ) == []


def test_same_second_rows_are_not_backwards(warehouse: Settings, tmp_path: Path) -> None:
    assert _file1(warehouse, tmp_path, OK, OK).findings() == {}  # exact duplicates are real requests


@pytest.mark.parametrize(
    ("line", "rule"),
    [("6,GPT-5,1,1,2,API log", "model_documented"), ("6,ChatGPT,1,1,2,Batch log", "log_type_documented")],
)
def test_unknown_values_flagged_and_kept(warehouse: Settings, tmp_path: Path, line: str, rule: str) -> None:
    result = _file1(warehouse, tmp_path, line)
    assert result.findings() == {rule: 1}
    assert raw_row_numbers(warehouse, REQ) == [2, 3]
    assert view_quarantine(warehouse, REQ) == []


def test_file3_session_id_shape(warehouse: Settings, tmp_path: Path) -> None:
    lines = [
        BURST3_HEADER,
        f"19440110.0,{UUID},12.5,GPT-4,100,20,120,Conversation log",  # fine
        "19440111.0,,0,ChatGPT,50,5,55,API log",  # fine: API rows have no session
        "19440112.0,,3,ChatGPT,50,5,55,Conversation log",  # conversation without a session id
        "19440113.0,not-a-uuid,3,ChatGPT,50,5,55,Conversation log",  # not a UUID
        f"19440114.0,{UUID},3,ChatGPT,50,5,55,API log",  # API row with a session id
    ]
    load_csv(warehouse, tmp_path, "BurstGPT_3.csv", "\n".join(lines) + "\n")
    load_csv(warehouse, tmp_path, "BurstGPT_1.csv", f"{BURST_HEADER}\n{OK}\n")  # files 1-2 have no Session ID
    result = validate(warehouse, REQ)
    assert result.findings() == {"session_id_matches_log_type": 3}
    shapes = [
        s["details"].rsplit("session_id_problem=", 1)[1]
        for s in result.outcomes["session_id_matches_log_type"].samples
    ]
    assert shapes == [
        "conversation row without a UUID",
        "conversation row without a UUID",
        "API-log row with a session id",
    ]
    assert view_quarantine(warehouse, REQ) == []


def _twins(warehouse: Settings, tmp_path: Path, full: list[str], twin: list[str]):
    load_csv(warehouse, tmp_path, "BurstGPT_1.csv", "\n".join([BURST_HEADER, *full]) + "\n")
    load_csv(warehouse, tmp_path, "BurstGPT_without_fails_1.csv", "\n".join([BURST_HEADER, *twin]) + "\n")
    return validate(warehouse, TWINS)


FULL = ["5,ChatGPT,1,1,2,API log", "6,GPT-4,0,0,0,API log", "7,ChatGPT,3,4,7,Conversation log"]


def test_twin_equal_to_full_minus_failures(warehouse: Settings, tmp_path: Path) -> None:
    result = _twins(warehouse, tmp_path, FULL, [FULL[0], FULL[2]])
    assert result.findings() == {}
    assert result.outcomes["without_fails_is_full_minus_failures"].evaluated == 1  # one file pair compared


@pytest.mark.parametrize(
    ("twin", "difference"),
    [
        ([FULL[0]], "row counts differ"),
        ([FULL[0], "7,ChatGPT,3,5,8,Conversation log"], "same row count, different rows"),
        # the same non-time content in another order (Timestamp still ascending)
        (["5,ChatGPT,3,4,7,Conversation log", "7,ChatGPT,1,1,2,API log"], "same row count, different rows"),
    ],
)
def test_twin_differing_from_full_is_flagged(
    warehouse: Settings, tmp_path: Path, twin: list[str], difference: str
) -> None:
    result = _twins(warehouse, tmp_path, FULL, twin)
    assert result.findings() == {"without_fails_is_full_minus_failures": 1}
    (sample,) = result.outcomes["without_fails_is_full_minus_failures"].samples
    assert sample["_source_file"].endswith("BurstGPT_without_fails_1.csv") and sample["file_number"] == "1"
    assert sample["details"].endswith(f"twin_difference={difference}")
    assert view_quarantine(warehouse, TWINS) == []


def test_failure_inside_a_without_fails_file(warehouse: Settings, tmp_path: Path) -> None:
    result = _twins(warehouse, tmp_path, FULL, FULL)
    assert result.findings() == {
        "without_fails_has_no_failures": 1,
        "without_fails_is_full_minus_failures": 1,
    }
    assert result.outcomes["without_fails_has_no_failures"].samples[0]["_row_number"] == "3"


def test_twin_without_its_full_file_is_not_compared(warehouse: Settings, tmp_path: Path) -> None:
    load_csv(warehouse, tmp_path, "BurstGPT_without_fails_2.csv", f"{BURST_HEADER}\n{OK}\n")
    result = validate(warehouse, TWINS)
    assert result.findings() == {}
    assert result.outcomes["without_fails_is_full_minus_failures"].note.startswith("nothing to compare")


SPREAD = [
    "6,ChatGPT,1,2,4,API log",  # day 0: Total ≠ Request + Response
    "86400,ChatGPT,1,1,2,API log",  # day 1: fine
    "172800,ChatGPT,-1,1,0,API log",  # day 2: negative tokens
]


def test_quarantine_split_by_partition(warehouse: Settings, tmp_path: Path) -> None:
    result = _file1(warehouse, tmp_path, *SPREAD)
    assert [(p.key, p.loaded, p.passed, p.quarantined) for p in result.partitions] == [
        ("0000", 2, 1, 1),
        ("0001", 1, 1, 0),
        ("0002", 1, 0, 1),
    ]
    assert [(r["_partition"], r["_row_number"], r["rule"]) for r in lake_quarantine(warehouse, REQ)] == [
        ("0000", 3, "total_is_request_plus_response"),
        ("0002", 5, "tokens_not_negative"),
    ]
    assert result.outcomes["tokens_not_negative"].partitions == {"0002"}
