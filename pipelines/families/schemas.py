"""The explicit column types of every file family (no type sniffing).

Raw column names are the upstream header names in snake_case (``Request tokens`` → ``request_tokens``,
``mem_per_pod_GB`` → ``mem_per_pod_gb``), except BurstGPT's ``Timestamp``, which becomes ``timestamp_s``
(seconds since the trace's day 0, not a calendar timestamp). A timestamp column ``x`` becomes two raw
columns: ``x`` (TIMESTAMP, UTC) and ``x_utc_offset`` (the offset written in the file, e.g. ``+08:00``;
NULL for a naive time, which is read as UTC).

The dbt sources (``dbt_project/models/staging/_raw__sources.yml``) are generated from these schemas, the
family registry and the suites' columns (:mod:`pipelines.warehouse.dbt_sources`): a column's ``description``
here is its description there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ColumnType = Literal["BIGINT", "DOUBLE", "VARCHAR", "TIMESTAMP"]
Unknown = Literal["error", "varchar", "double"]
Layout = Literal["table", "wide"]


@dataclass(frozen=True)
class Column:
    header: str  # the name in the file's header
    type: ColumnType
    required: bool = False  # an empty value is a reject (the column defines the row's partition or identity)
    optional: bool = False  # the header may lack it (BurstGPT file 3's extra columns)
    name: str = ""  # raw column name; derived from the header when empty
    description: str = ""  # what the raw column holds (the dbt source's column description)

    @property
    def raw_name(self) -> str:
        return self.name or snake_case(self.header)


@dataclass(frozen=True)
class FileSchema:
    """How to read one family's files."""

    columns: tuple[Column, ...]
    unknown: Unknown = "error"  # what an unlisted header column is: an error, or carried as text / number
    layout: Layout = "table"  # "wide": Time + one column per series, unpivoted to long on load
    # Header columns the files are known to carry beyond ``columns``: loaded like any other unlisted column
    # (as ``unknown``); listed so that the dbt sources document them.
    extras: tuple[Column, ...] = ()

    def column(self, header: str) -> Column | None:
        for c in self.columns:
            if c.header == header:
                return c
        return None

    def required_headers(self) -> list[str]:
        return [c.header for c in self.columns if not c.optional]


def snake_case(header: str) -> str:
    name = re.sub(r"[^0-9a-zA-Z]+", "_", header.strip()).strip("_").lower()
    return name or "unnamed"


def _cols(spec: str, type_: ColumnType, description: str = "", **kw: bool) -> tuple[Column, ...]:
    """One column per header in ``spec``; ``{name}`` in ``description`` is each one's raw name."""
    return tuple(
        Column(h, type_, description=description.format(name=snake_case(h)), **kw) for h in spec.split()
    )


TS: ColumnType = "TIMESTAMP"

SEREN_JOBS = FileSchema(
    (
        Column("job_id", "BIGINT", required=True, description="Integer job id."),
        Column("user", "VARCHAR"),
        *_cols("node_num gpu_num cpu_num", "BIGINT"),
        *_cols("type state", "VARCHAR"),
        Column("submit_time", TS, required=True),
        *_cols("start_time end_time", TS),
        *_cols("duration queue gpu_time", "DOUBLE"),
    )
)

KALOS_JOBS = FileSchema(
    (
        Column("job_id", "VARCHAR", required=True, description="16-character job id."),
        Column("user", "VARCHAR"),
        *_cols("node_num gpu_num cpu_num", "BIGINT"),
        *_cols("mem_per_pod_GB shared_mem_per_pod", "DOUBLE"),
        *_cols("type state", "VARCHAR"),
        Column("submit_time", TS, required=True),
        *_cols("start_time end_time fail_time stop_time", TS),
        *_cols("duration queue gpu_time", "DOUBLE"),
    )
)

CLUSTER_SUMMARY = FileSchema(
    (
        Column(
            "id",
            "VARCHAR",
            required=True,
            name="cluster",
            description="Cluster name as published (Seren, Kalos, Philly, Helios, PAI).",
        ),
        *_cols("job_num cpu_job_num gpu_job_num", "BIGINT"),
        *_cols(
            "avg_run_time_gpu avg_que_time_gpu avg_gpu_num med_run_time_gpu med_que_time_gpu med_gpu_num "
            "max_run_time_gpu max_gpu complete_rate_gpu cancel_rate_gpu fail_rate_gpu complete_gpu_time "
            "cancel_gpu_time fail_gpu_time complete_rate_gpu_time cancel_rate_gpu_time fail_rate_gpu_time "
            "avg_run_time_cpu avg_que_time_cpu med_run_time_cpu med_que_time_cpu complete_rate_cpu "
            "cancel_rate_cpu fail_rate_cpu",
            "DOUBLE",
        ),
    )
)

# Previous-work headers are not verified upstream: only the numeric names the upstream notebook uses are
# typed; every other column (times included: Helios writes naive datetimes, PAI seconds) is carried as text
# and interpreted in staging. All typed names are optional — the header decides.
PREVIOUS_WORK = FileSchema(
    (
        *_cols(
            "duration gpu_num cpu_num node_num queue plan_cpu plan_gpu wait_time", "DOUBLE", optional=True
        ),
        *_cols("state status", "VARCHAR", optional=True),
        *_cols(
            "submit_time start_time end_time",
            "VARCHAR",
            optional=True,
            description="{name} as written (not verified upstream: naive datetimes, or seconds since the trace start).",
        ),
    ),
    unknown="varchar",
)

REQUESTS = FileSchema(
    (
        Column(
            "Timestamp",
            "DOUBLE",
            required=True,
            name="timestamp_s",
            description="Seconds since 00:00 of the trace's day 0, local time UTC+8.",
        ),
        Column("Session ID", "VARCHAR", optional=True, description="File 3 only; empty on API-log rows."),
        Column(
            "Elapsed time",
            "DOUBLE",
            optional=True,
            description="File 3 only: seconds from submission to final response.",
        ),
        Column("Model", "VARCHAR"),
        Column("Request tokens", "BIGINT"),
        Column("Response tokens", "BIGINT"),
        Column("Total tokens", "BIGINT"),
        Column("Log Type", "VARCHAR"),
    )
)

# IPMI layout is unverified beyond Time and Sys_Total_Power: the header decides, power columns are numbers,
# a server-id column (IP/Node/Host/Server) is text.
IPMI = FileSchema(
    (
        Column("Time", TS, required=True),
        Column("Sys_Total_Power", "DOUBLE", description="Whole-server power, W."),
        Column(
            "IP",
            "VARCHAR",
            optional=True,
            description="Server id, when the file has one (NULL when the header lacks it).",
        ),
        *_cols("Node Host Server", "VARCHAR", optional=True),
    ),
    unknown="double",
    extras=(
        Column("CPU_Power", "DOUBLE", description="CPU power, W, when present."),
        Column(
            "Memory_Power", "DOUBLE", description="Memory power, W, when present (absent on type B rows)."
        ),
    ),
)

UTILIZATION = FileSchema(
    (Column("Time", TS, required=True, description="Sample time in UTC (files write UTC+8)."),),
    unknown="double",
    layout="wide",
)
