"""The rules shared by the Seren and Kalos job traces (DATASETS.md §1 "Job traces"), built per cluster.

Documented: ``duration = end_time − start_time``, ``queue = start_time − submit_time``,
``gpu_time = duration × gpu_num`` (seconds). The tolerance for "beyond rounding" is 1 s (per GPU for
``gpu_time``). Each comparison is a derived column computed in the frame's DuckDB query; the GX expectation
then bounds it.
"""

from __future__ import annotations

from collections.abc import Sequence

from expectations.rules import FAMILY_FRAME, Rule, between, in_set, not_null

ROUNDING_S = 1.0  # "beyond rounding": a difference above 1 s (per GPU for gpu_time)


def _secs(later: str, earlier: str) -> str:
    return f"(epoch({later}) - epoch({earlier}))"


DURATION_RULE_SQL = f"""case
    when duration is null or end_time is null then null
    when abs(duration - {_secs("end_time", "start_time")}) <= {ROUNDING_S}
     and abs(duration - {_secs("end_time", "submit_time")}) <= {ROUNDING_S} then 'both'
    when abs(duration - {_secs("end_time", "start_time")}) <= {ROUNDING_S} then 'end_minus_start'
    when abs(duration - {_secs("end_time", "submit_time")}) <= {ROUNDING_S} then 'end_minus_submit'
    else 'neither' end"""


def utc_offsets_sql(time_columns: Sequence[str]) -> str:
    """The distinct UTC offsets written on a row's timestamps, sorted and comma-joined (``+08:00``)."""
    offsets = ", ".join(f"{c}_utc_offset" for c in time_columns)
    return f"array_to_string(list_sort(list_distinct([{offsets}])), ',')"  # list_distinct drops NULLs


def job_rules(
    cluster: str,
    *,
    utc_offset: str,
    time_columns: Sequence[str],
    states: Sequence[str],
    types: Sequence[str],
) -> tuple[Rule, ...]:
    """Quarantine, duplicate and flag rules of one cluster's job trace."""
    return (
        Rule(
            "job_id_present",
            "quarantine",
            "Every job has a job_id (a missing id cannot be a true record).",
            not_null("job_id"),
            columns=("job_id",),
        ),
        Rule(
            "counts_not_negative",
            "quarantine",
            "node_num, gpu_num and cpu_num are counts: none is negative.",
            between("min_count", min_value=0),
            derived={"min_count": "least(node_num, gpu_num, cpu_num)"},
            columns=("node_num", "gpu_num", "cpu_num"),
        ),
        Rule(
            "start_not_before_submit",
            "quarantine",
            "A job cannot start before it is submitted (start_time ≥ submit_time).",
            between("start_minus_submit_s", min_value=0),
            derived={"start_minus_submit_s": _secs("start_time", "submit_time")},
            columns=("submit_time", "start_time"),
        ),
        Rule(
            "end_not_before_start",
            "quarantine",
            "A job cannot end before it starts (end_time ≥ start_time).",
            between("end_minus_start_s", min_value=0),
            derived={"end_minus_start_s": _secs("end_time", "start_time")},
            columns=("start_time", "end_time"),
        ),
        Rule(
            "queue_is_start_minus_submit",
            "quarantine",
            f"Documented: queue = start_time − submit_time (s), within rounding (≤ {ROUNDING_S:g} s).",
            between("queue_delta_s", max_value=ROUNDING_S),
            derived={"queue_delta_s": f"abs(queue - {_secs('start_time', 'submit_time')})"},
            columns=("queue", "submit_time", "start_time"),
        ),
        Rule(
            "gpu_time_is_duration_times_gpu_num",
            "quarantine",
            f"Documented: gpu_time = duration × gpu_num, within rounding (≤ {ROUNDING_S:g} s per GPU).",
            between("gpu_time_delta_per_gpu_s", max_value=ROUNDING_S),
            derived={"gpu_time_delta_per_gpu_s": "abs(gpu_time - duration * gpu_num) / greatest(gpu_num, 1)"},
            columns=("gpu_time", "duration", "gpu_num"),
        ),
        Rule(
            "job_id_unique",
            "duplicate",
            "A job_id names one job across the whole family; repeated ids are counted and the first copy "
            "(by _row_number) is kept downstream.",
            between("job_id_copy", max_value=1),
            frame=FAMILY_FRAME,
            derived={
                "job_id_copy": "case when job_id is not null then row_number() over "
                "(partition by job_id order by _source_file, _row_number) end"
            },
            columns=("job_id",),
        ),
        Rule(
            "duration_is_end_minus_start",
            "flag",
            f"Documented: duration = end_time − start_time; measured per row against end − start and end − "
            f"submit ({cluster}: the breakdown says which definition the rows follow; the Kalos README rows "
            "follow end − submit).",
            in_set("duration_rule", ["end_minus_start", "both"]),
            derived={"duration_rule": DURATION_RULE_SQL},
            columns=("duration", "submit_time", "start_time", "end_time"),
            breakdown="duration_rule",
        ),
        Rule(
            "state_documented",
            "flag",
            f"state is one of the documented states ({', '.join(states)}); others (e.g. RUNNING) are kept.",
            in_set("state", states),
            columns=("state",),
        ),
        Rule(
            "type_documented",
            "flag",
            f"type is one of the documented {cluster} job types ({', '.join(types)}); others are kept.",
            in_set("type", types),
            columns=("type",),
        ),
        Rule(
            "utc_offset_documented",
            "flag",
            f"{cluster} timestamps are written with UTC offset {utc_offset} (DATASETS.md §1).",
            in_set("utc_offsets", [utc_offset]),
            derived={"utc_offsets": utc_offsets_sql(time_columns)},
            columns=tuple(f"{c}_utc_offset" for c in time_columns),
        ),
    )


STATES = ("COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL")
