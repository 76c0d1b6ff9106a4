"""What a job export leaves out, and what its consumer does to the rows written: the sidecar's
``consumer_effects`` for job formats, each counted in SQL over the export's own rows (never estimated).

- Jobs with no absolute submit time are in no window (PAI's times are seconds since PAI's own trace start,
  a date the trace does not publish).
- Jobs of the window with no duration (still ``RUNNING``: no end time) are not written.
- Without ``--cluster``, the clusters' jobs share one submit clock that spans their whole date range.
- ``helios``: the Helios simulator's ``trace_process`` drops jobs with ``gpu_num <= 0``, jobs submitted
  before its fixed start (2020-04-01), and keeps only the experiment's date range (``Sept``: 2020-09-01 to
  2020-09-26 23:59, counted from its start) of submit times taken relative to the first job read.
"""

from __future__ import annotations

from typing import Any

from pipelines.export.effects import effect
from pipelines.export.formats import (
    ALL_JOBS_SQL,
    HELIOS_READER_RANGE,
    HELIOS_READER_START,
    ExportFormat,
)

EXPORT = "trace-warehouse export"
CLOCK_OF = {
    "pai": "PAI's submit, start and end times are seconds since the start of PAI's own trace, "
    "whose date is not published",
}
NO_CLOCK = "the file gives no submit time"


def unclocked_jobs(con, where: str) -> list[tuple[str, int]]:
    """(cluster, jobs) of the jobs that match ``where`` but have no absolute submit time."""
    sql = (
        f"select cluster_name, count(*) from ({ALL_JOBS_SQL}) "
        f"where submit_time_utc is null and {where} group by 1 order by 1"
    )
    return [(str(c), int(n)) for c, n in con.execute(sql).fetchall()]


def unclocked_text(cluster: str, jobs: int) -> str:
    return f"{jobs:,} {cluster} jobs have no absolute submit time ({CLOCK_OF.get(cluster, NO_CLOCK)})"


def _helios_reader(con, fmt: ExportFormat, ctes: str) -> list[dict[str, Any]]:
    """The rows of the written file that the Helios simulator's ``trace_process`` drops, step by step."""
    begin, end = HELIOS_READER_RANGE
    written = f"{ctes}, written as (select gpu_num, date_trunc('second', submit_at) as submit from exported)"
    sql = f"""{written},
        gpu as (select * from written where gpu_num > 0),
        started as (select * from gpu where submit >= timestamp '{HELIOS_READER_START}'),
        offsets as (select epoch(submit) - epoch(min(submit) over ()) as since_first from started)
        select
            (select count(*) from written) - (select count(*) from gpu),
            (select count(*) from gpu) - (select count(*) from started),
            (select count(*) from offsets where not (since_first
                between epoch(timestamp '{begin}') - epoch(timestamp '{HELIOS_READER_START}')
                and epoch(timestamp '{end}') - epoch(timestamp '{HELIOS_READER_START}')))
    """
    no_gpu, early, outside = con.execute(sql).fetchone()
    return [
        effect(fmt.consumer, "drops", no_gpu, "it keeps GPU jobs only (gpu_num > 0)"),
        effect(
            fmt.consumer,
            "drops",
            early,
            f"it drops jobs submitted before its fixed trace start {HELIOS_READER_START} "
            "(Philly's 2017 jobs all are)",
            "edit `start` in trace_process (utils.py)",
        ),
        effect(
            fmt.consumer,
            "drops",
            outside,
            f"its 'Sept' experiment keeps submit times {begin} to {end} counted from {HELIOS_READER_START} "
            "but taken relative to the first job read, so only jobs that far after the file's first job stay",
            "edit trace_range in simulator.py to the exported window (and start in utils.py to its start)",
        ),
    ]


def job_effects(
    con, fmt: ExportFormat, ctes: str, where: str, cluster: str | None, rows: int
) -> list[dict[str, Any]]:
    """The effects of one job export: ``ctes`` defines ``windowed`` and ``exported``, ``where`` the filters."""
    effects = [
        effect(
            EXPORT,
            "drops",
            jobs,
            unclocked_text(name, jobs) + "; they are in no window and not written",
        )
        for name, jobs in unclocked_jobs(con, where)
    ]
    running = con.execute(f"{ctes} select count(*) from windowed where duration_s is null").fetchone()[0]
    if running:
        effects.append(
            effect(
                EXPORT, "drops", running, "jobs of the window have no duration (still RUNNING: no end time)"
            )
        )
    if cluster is None:
        clusters, names, days = con.execute(
            f"{ctes} select count(distinct cluster_name), string_agg(distinct cluster_name, ', ' "
            "order by cluster_name), date_diff('day', min(submit_time_utc), max(submit_time_utc)) "
            "from exported"
        ).fetchone()
        if clusters > 1:
            effects.append(
                effect(
                    fmt.consumer,
                    "counts",
                    rows,
                    f"{clusters} clusters ({names}) share one submit clock spanning {days:,} days, "
                    "read as one cluster's queue",
                    "--cluster NAME",
                )
            )
    if fmt.name == "helios":
        effects.extend(e for e in _helios_reader(con, fmt, ctes) if e["rows"])
    return effects
