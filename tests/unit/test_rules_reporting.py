"""How findings are shown: quarantine details, markdown tables, pass/fail against the threshold."""

from __future__ import annotations

import duckdb

from expectations.rules import Rule, between
from pipelines.defs.check_metadata import md_table
from pipelines.validate.findings import details_sql
from pipelines.validate.outcomes import RuleOutcome

RULE = Rule(
    "gpu_time_is_duration_times_gpu_num",
    "quarantine",
    "d",
    between("delta", max_value=1),
    derived={"delta": "…"},
    columns=("gpu_time", "duration", "gpu_num"),
)


def test_details_quote_the_offending_values() -> None:
    rows = duckdb.sql(
        "select _source_file, _row_number, "
        + details_sql(RULE.detail_columns)
        + " as details from (values ('f', 3, 945.0::double, 117::bigint, 8::bigint, 1.125::double), "
        "('g', 3, null, 1, null, null)) t(_source_file, _row_number, gpu_time, duration, gpu_num, delta) "
        "order by all"
    ).fetchall()
    assert rows == [
        ("f", 3, "gpu_time=945.0 duration=117 gpu_num=8 delta=1.125"),
        ("g", 3, "gpu_time=null duration=1 gpu_num=null delta=null"),
    ]


def test_md_table_escapes_and_truncates() -> None:
    text = md_table(("a", "b"), [("x|y", 1), ("z", 2), ("w", 3)], limit=2)
    assert text.splitlines() == ["| a | b |", "|---|---|", "| x\\|y | 1 |", "| z | 2 |", "| … 1 more | |"]


def test_outcome_passes_up_to_its_threshold() -> None:
    flag = Rule("f", "flag", "d", between("a", 0), threshold=0.25)
    assert RuleOutcome(flag, count=1, evaluated=4).passed
    assert not RuleOutcome(flag, count=2, evaluated=4).passed
    assert RuleOutcome(flag).passed and RuleOutcome(flag).rate == 0.0
    assert not RuleOutcome(flag, blocked=True).passed
    assert not RuleOutcome(flag, errors=["partition 0000: boom"]).passed
