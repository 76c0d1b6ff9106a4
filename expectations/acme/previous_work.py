"""Suites of the previous-work traces ``acme__{helios,philly,pai}_jobs`` (HuggingFace only).

Their headers are not verified upstream, so only the columns DATASETS.md names are checked — the names the
upstream notebook uses: ``duration ≥ 0``, ``gpu_num ≥ 0``, ``queue ≥ 0`` and ``state`` in the mapped set.
PAI names them ``plan_gpu`` (GPUs × 100), ``wait_time`` and ``status``; the raw layer always has every
named column (typed NULL when the header lacks it), so a derived column takes whichever is present.
Unknown columns are carried and not checked.
"""

from __future__ import annotations

from collections.abc import Sequence

from expectations.rules import Rule, Suite, between, in_set, table_columns
from pipelines.families.schemas import PREVIOUS_WORK

# The states each trace is known to write: Helios uses Slurm's states (as the AcmeTrace clusters); Philly's
# are Pass/Failed/Killed [V]; PAI's status values are Terminated/Failed/Running ("Failed" is the only one the
# upstream notebook maps).
HELIOS_STATES = ("COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL")
PHILLY_STATES = ("Pass", "Failed", "Killed")
PAI_STATES = ("Terminated", "Failed", "Running")

_COLUMNS = table_columns([(c.raw_name, c.type) for c in PREVIOUS_WORK.columns])


def _rules(trace: str, states: Sequence[str]) -> tuple[Rule, ...]:
    return (
        Rule(
            "duration_not_negative",
            "quarantine",
            f"{trace}: duration is a run time in seconds, never negative.",
            between("duration", min_value=0),
            columns=("duration",),
        ),
        Rule(
            "gpu_num_not_negative",
            "quarantine",
            f"{trace}: gpu_num (PAI: plan_gpu / 100) is a GPU count, never negative.",
            between("gpu_count", min_value=0),
            derived={"gpu_count": "coalesce(gpu_num, plan_gpu / 100)"},
            columns=("gpu_num", "plan_gpu"),
        ),
        Rule(
            "queue_not_negative",
            "quarantine",
            f"{trace}: queue (PAI: wait_time) is a waiting time in seconds, never negative.",
            between("queue_s", min_value=0),
            derived={"queue_s": "coalesce(queue, wait_time)"},
            columns=("queue", "wait_time"),
        ),
        Rule(
            "state_in_mapped_set",
            "flag",
            f"{trace}: state (PAI: status) is one of {', '.join(states)}; other values are kept.",
            in_set("job_state", states),
            derived={"job_state": "coalesce(state, status)"},
            columns=("state", "status"),
        ),
    )


HELIOS = Suite("acme__helios_jobs", _COLUMNS, _rules("Helios", HELIOS_STATES))
PHILLY = Suite("acme__philly_jobs", _COLUMNS, _rules("Philly", PHILLY_STATES))
PAI = Suite("acme__pai_jobs", _COLUMNS, _rules("PAI", PAI_STATES))
