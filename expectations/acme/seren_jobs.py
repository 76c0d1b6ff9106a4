"""Suite of ``acme__seren_jobs`` (``data/job_trace/trace_seren.csv``): 13 columns, integer job ids, +08:00."""

from __future__ import annotations

from expectations.acme.jobs import STATES, job_rules
from expectations.rules import Suite, table_columns
from pipelines.families.schemas import SEREN_JOBS

TYPES = ("Eval", "Pretrain", "SFT", "MLLM", "Debug", "Other")

SUITE = Suite(
    family="acme__seren_jobs",
    columns=table_columns([(c.raw_name, c.type) for c in SEREN_JOBS.columns]),
    rules=job_rules(
        "Seren",
        utc_offset="+08:00",
        time_columns=("submit_time", "start_time", "end_time"),
        states=STATES,
        types=TYPES,
    ),
)
