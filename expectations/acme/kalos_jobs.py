"""Suite of ``acme__kalos_jobs`` (``data/job_trace/trace_kalos.csv``): 17 columns, 16-char ids, +00:00.

Besides the shared job rules: ``fail_time`` is set only on failed rows and ``stop_time`` only on cancelled
rows (DATASETS.md §1). Each is a derived column holding the state of the rows that carry the timestamp (NULL
elsewhere), expected to be FAILED / CANCELLED.
"""

from __future__ import annotations

from expectations.acme.jobs import STATES, job_rules
from expectations.rules import Rule, Suite, in_set, table_columns
from pipelines.families.schemas import KALOS_JOBS

# README types; the upstream notebook also filters a Kalos `SFT` type [V], so it is known, not a surprise.
TYPES = ("Eval", "Pretrain", "Debug", "Other", "SFT")

SUITE = Suite(
    family="acme__kalos_jobs",
    columns=table_columns([(c.raw_name, c.type) for c in KALOS_JOBS.columns]),
    rules=(
        *job_rules(
            "Kalos",
            utc_offset="+00:00",
            time_columns=("submit_time", "start_time", "end_time", "fail_time", "stop_time"),
            states=STATES,
            types=TYPES,
        ),
        Rule(
            "fail_time_only_on_failed",
            "flag",
            "Kalos fail_time is set only on failed rows (state FAILED), empty otherwise.",
            in_set("state_with_fail_time", ["FAILED"]),
            derived={"state_with_fail_time": "case when fail_time is not null then coalesce(state, '') end"},
            columns=("state", "fail_time"),
        ),
        Rule(
            "stop_time_only_on_cancelled",
            "flag",
            "Kalos stop_time is set only on cancelled rows (state CANCELLED), empty otherwise.",
            in_set("state_with_stop_time", ["CANCELLED"]),
            derived={"state_with_stop_time": "case when stop_time is not null then coalesce(state, '') end"},
            columns=("state", "stop_time"),
        ),
    ),
)
