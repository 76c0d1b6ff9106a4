"""Validation of what changed: stored results per lake file (a source file's partition or an appended part),
content hash and suite version.

Validate, change one partition's rows, validate again: exactly that unit is evaluated (its stored record is
replaced, the others are the same records), and the outcome follows the change. A suite change (a tolerance)
re-validates every unit of the family.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from expectations import suite_for
from expectations.rules import between
from pipelines.settings import Settings
from pipelines.validate import results_store
from tests.support.validation import (
    BURST_HEADER,
    assert_reconciled,
    lake_quarantine,
    load_csv,
    validate,
)

REQ = "burstgpt__requests"
DAY_0 = ["5,ChatGPT,472,18,490,Conversation log", "6,ChatGPT,1,2,3,API log"]
DAY_1 = ["86400,ChatGPT,10,5,15,API log", "86401,GPT-4,7,0,7,API log"]
DAY_2 = ["172800,ChatGPT,3,1,4,API log"]
DAY_2_BROKEN = ["172800,ChatGPT,3,1,9,API log"]  # Total ≠ Request + Response: quarantined


def _load(warehouse: Settings, tmp_path: Path, *days: list[str]) -> None:
    lines = [BURST_HEADER, *(line for day in days for line in day)]
    load_csv(warehouse, tmp_path, "BurstGPT_1.csv", "\n".join(lines) + "\n")


def _records(warehouse: Settings) -> dict[str, dict]:
    doc = json.loads(results_store.path(warehouse, REQ).read_text())
    return doc["units"]


def test_only_the_changed_partition_is_validated_again(warehouse: Settings, tmp_path: Path) -> None:
    _load(warehouse, tmp_path, DAY_0, DAY_1, DAY_2)
    first = validate(warehouse, REQ)
    assert (first.units_validated, first.units_reused) == (3, 0)
    assert first.findings() == {"request_not_failed": 1}
    before = _records(warehouse)
    assert sorted(before) == ["0000/BurstGPT_1", "0001/BurstGPT_1", "0002/BurstGPT_1"]

    again = validate(warehouse, REQ)  # nothing changed: nothing is evaluated, the same outcome
    assert (again.units_validated, again.units_reused, again.frames_validated) == (0, 3, [])
    assert again.findings() == first.findings() and _records(warehouse) == before

    _load(warehouse, tmp_path, DAY_0, DAY_1, DAY_2_BROKEN)  # one partition's rows change
    changed = validate(warehouse, REQ)
    assert (changed.units_validated, changed.units_reused) == (1, 2)
    after = _records(warehouse)
    assert after["0000/BurstGPT_1"] == before["0000/BurstGPT_1"]
    assert after["0001/BurstGPT_1"] == before["0001/BurstGPT_1"]
    assert after["0002/BurstGPT_1"]["key"] != before["0002/BurstGPT_1"]["key"]
    assert after["0002/BurstGPT_1"]["quarantined"] == 1
    assert changed.findings() == {"request_not_failed": 1, "total_is_request_plus_response": 1}
    assert changed.outcomes["request_not_failed"].evaluated == 5  # reused units still count
    assert [(r["_partition"], r["rule"]) for r in lake_quarantine(warehouse, REQ)] == [
        ("0002", "total_is_request_plus_response")
    ]
    assert_reconciled(changed)
    assert (changed.loaded, changed.passed, changed.quarantined) == (5, 4, 1)

    _load(warehouse, tmp_path, DAY_0, DAY_1, DAY_2)  # and back: the quarantine file goes
    fixed = validate(warehouse, REQ)
    assert fixed.units_validated == 1 and fixed.findings() == first.findings()
    assert lake_quarantine(warehouse, REQ) == []


def test_an_appended_tail_is_validated_alone(warehouse: Settings, tmp_path: Path) -> None:
    """Day 2 gains a broken line and day 3 is new: the tail's part of day 2 and day 3 are the only units
    validated; day 2's first file keeps its stored result, and the quarantine file is the part's."""
    _load(warehouse, tmp_path, DAY_0, DAY_1, DAY_2)
    validate(warehouse, REQ)
    before = _records(warehouse)
    _load(
        warehouse,
        tmp_path,
        DAY_0,
        DAY_1,
        DAY_2,
        ["172801,ChatGPT,3,1,9,API log"],
        ["259200,GPT-4,4,4,8,API log"],
    )
    result = validate(warehouse, REQ)
    after = _records(warehouse)
    assert (result.units_validated, result.units_reused) == (2, 3)
    assert sorted(set(after) - set(before)) == ["0002/BurstGPT_1~1", "0003/BurstGPT_1"]
    assert all(after[unit] == before[unit] for unit in before)
    assert after["0002/BurstGPT_1~1"]["quarantined"] == 1
    quarantined = lake_quarantine(warehouse, REQ)
    assert [(r["_partition"], r["_row_number"], r["rule"]) for r in quarantined] == [
        ("0002", 7, "total_is_request_plus_response")
    ]
    assert (result.loaded, result.passed, result.quarantined) == (7, 6, 1)
    assert_reconciled(result)


def test_a_vanished_partition_drops_its_result(warehouse: Settings, tmp_path: Path) -> None:
    _load(warehouse, tmp_path, DAY_0, DAY_1, DAY_2_BROKEN)
    assert validate(warehouse, REQ).quarantined == 1
    _load(warehouse, tmp_path, DAY_0, DAY_1)
    result = validate(warehouse, REQ)
    assert sorted(_records(warehouse)) == ["0000/BurstGPT_1", "0001/BurstGPT_1"]
    assert result.findings() == {"request_not_failed": 1} and lake_quarantine(warehouse, REQ) == []
    assert [p.key for p in result.partitions] == ["0000", "0001"]


def test_a_suite_change_validates_every_partition_again(
    warehouse: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _load(warehouse, tmp_path, DAY_0, DAY_1, DAY_2_BROKEN)
    assert validate(warehouse, REQ).findings()["total_is_request_plus_response"] == 1
    suite = suite_for(REQ)
    rule = suite.rule("total_is_request_plus_response")
    tolerant = dataclasses.replace(rule, expect=between("total_minus_parts", min_value=0, max_value=10))
    changed = dataclasses.replace(suite, rules=tuple(tolerant if r is rule else r for r in suite.rules))
    monkeypatch.setattr("pipelines.validate.validation.suite_for", lambda _family: changed)

    result = validate(warehouse, REQ)
    assert (result.units_validated, result.units_reused) == (3, 0)
    assert result.findings() == {"request_not_failed": 1}  # 9 - 4 = 5 is within the new tolerance
    assert lake_quarantine(warehouse, REQ) == []
    assert validate(warehouse, REQ).units_validated == 0  # and it is stored under the new version
