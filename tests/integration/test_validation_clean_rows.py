"""The validation helpers' own clean inputs (tests/support/validation.py) raise no finding at all."""

from __future__ import annotations

from pathlib import Path

from pipelines.settings import Settings
from tests.support.validation import (
    KALOS_HEADER,
    SEREN_HEADER,
    kalos_line,
    lake_quarantine,
    load_csv,
    seren_line,
    validate,
)


def test_clean_seren_rows_raise_no_finding(warehouse: Settings, tmp_path: Path) -> None:
    text = "\n".join([SEREN_HEADER, seren_line(1), seren_line(2, end="2023-03-01 00:20:52")]) + "\n"
    load_csv(warehouse, tmp_path, "trace_seren.csv", text)
    result = validate(warehouse, "acme__seren_jobs")
    assert result.findings() == {}
    assert [(p.key, p.loaded, p.quarantined) for p in result.partitions] == [("2023-02", 2, 0)]
    assert result.outcomes["duration_is_end_minus_start"].breakdown == {"end_minus_start": 2}
    assert lake_quarantine(warehouse, "acme__seren_jobs") == []  # written, empty


def test_clean_kalos_rows_raise_no_finding(warehouse: Settings, tmp_path: Path) -> None:
    text = "\n".join(
        [
            KALOS_HEADER,
            kalos_line("a" * 16),
            kalos_line("b" * 16, state="FAILED", fail_time="2023-05-17 11:01:16"),
            kalos_line("c" * 16, state="CANCELLED", stop_time="2023-05-17 11:01:16"),
        ]
    )
    load_csv(warehouse, tmp_path, "trace_kalos.csv", text + "\n")
    result = validate(warehouse, "acme__kalos_jobs")
    assert result.findings() == {}
    assert result.loaded == 3 and result.quarantined == 0
