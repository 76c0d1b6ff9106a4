"""How findings are shown: quarantine details, markdown tables, pass/fail against the threshold."""

from __future__ import annotations

import pandas as pd

from expectations.rules import Rule, between
from pipelines.defs.check_metadata import md_table
from pipelines.validate.outcomes import RuleOutcome
from pipelines.validate.validation import detail_rows

RULE = Rule(
    "gpu_time_is_duration_times_gpu_num",
    "quarantine",
    "d",
    between("delta", max_value=1),
    derived={"delta": "…"},
    columns=("gpu_time", "duration", "gpu_num"),
)


def test_detail_rows_quote_the_offending_values() -> None:
    df = pd.DataFrame(
        {
            "_source_file": pd.Categorical(["f", "f", "g"]),
            "_row_number": pd.array([2, 3, 3], dtype="Int64"),
            "gpu_time": [936.0, 945.0, None],
            "duration": [117.0, 117.0, 1.0],
            "gpu_num": pd.array([8, 8, None], dtype="Int64"),
            "delta": [0.0, 1.125, None],
        }
    )
    keys = [{"_source_file": "g", "_row_number": "3"}, {"_source_file": "f", "_row_number": 3}]
    out = detail_rows(df, keys, RULE, ("_source_file", "_row_number"))
    assert out.to_dict("records") == [
        {
            "_source_file": "f",
            "_row_number": 3,
            "details": "gpu_time=945.0 duration=117.0 gpu_num=8 delta=1.125",
        },
        {
            "_source_file": "g",
            "_row_number": 3,
            "details": "gpu_time=null duration=1.0 gpu_num=null delta=null",
        },
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
