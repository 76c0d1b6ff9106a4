"""The replay formats: one :class:`ExportFormat` per format — its consumer, columns and the SQL that reads
it from the marts.

Every format reads a window of one fact (``marts.fct_request`` or ``marts.fct_job``) with its dimensions,
ordered by a unique key, so the same window gives the same bytes. Arrival times are rebased to the window's
start and divided by ``--speed`` (speed 2: arrivals twice as fast); durations and token counts are never
scaled. Which upstream code each format follows:

- ``burstgpt``: the 6-column BurstGPT CSV (files 1-2's header). vLLM's ``BurstGPTDataset``
  (``vllm/benchmarks/datasets.py``) reads it with ``pd.read_csv``, keeps ``Model == "GPT-4"`` and
  ``Response tokens > 0`` by name, then takes the request and response tokens **by position** (columns 2
  and 3), so the 8-column v2.0 layout of BurstGPT_3 (Session ID, Elapsed time inserted) breaks it. Failed
  requests are kept (the upstream shape; the consumer filters them).
- ``mooncake``: Mooncake-style JSONL, ``{"timestamp": ms, "input_length", "output_length", "hash_ids"}``,
  as aiperf's ``mooncake_trace`` loader validates it (``src/aiperf/dataset/loader/models.py``,
  ``MooncakeTrace``) and NVIDIA Dynamo's benchmarks take it. ``timestamp`` is integer milliseconds since
  the window start; ``hash_ids`` follow :mod:`pipelines.export.hash_ids`. Failed requests are left out
  (``output_length`` 0 is not a request to replay).
- ``vidur``: Vidur's trace-replay CSV, ``arrived_at`` (seconds), ``num_prefill_tokens``,
  ``num_decode_tokens``, the three columns ``TraceReplayRequestGenerator`` reads
  (``vidur/request_generator/trace_replay_request_generator.py``). Failed requests are left out (Vidur
  would clip their 0 decode tokens to 1).
- ``acme-jobs``: an AcmeTrace job trace as cluster simulators take it (Helios/Philly-style):
  ``job_id, cluster, user, submit_time`` (seconds since the window start), ``duration`` (run seconds,
  end - start; the file's reported duration where end or start is missing), ``gpu_num, cpu_num,
  node_num, type, state``. Jobs with no duration at all (still ``RUNNING``) are left out.
- ``helios``: one cluster's ``cluster_log.csv`` as the Helios simulator reads it (HeliosArtifact
  ``framework/QSSF Service/utils.py`` ``trace_process``, checked at commit bdaae109c21f, MIT licence):
  ``pd.read_csv(..., parse_dates=['submit_time'], usecols=[job_id, user, vc, jobname, gpu_num, cpu_num,
  state, submit_time, duration])``. ``submit_time`` is a naive ``YYYY-MM-DD HH:MM:SS`` date-time in UTC
  (window start + the scaled arrival, whole seconds); ``duration`` whole run seconds; ``gpu_num`` and
  ``cpu_num`` integers as Helios writes them (the clusters with absolute times have whole counts; PAI's
  fractional plan counts are in no window). AcmeTrace has no
  virtual cluster and no job name: ``vc`` is the cluster's name and ``jobname`` the job type.

Jobs without an absolute submit time (PAI: seconds since PAI's own trace start, whose date is not
published) are in no window; every job export counts them (:mod:`pipelines.export.job_effects`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["requests", "jobs"]
Writer = Literal["csv", "mooncake"]

REQUEST_KEY = "timestamp_s, _source_file, _row_number"
JOB_KEY = "submit_time_utc, cluster_name, job_id"

REQUESTS_SQL = """
select
    r.timestamp_s,
    m.model_name,
    l.log_type,
    r.request_tokens,
    r.response_tokens,
    r.total_tokens,
    r.session_id,
    r.is_failed,
    r._data_origin,
    r._source_file,
    r._row_number
from marts.fct_request as r
inner join marts.dim_model as m on r.model_key = m.model_key
inner join marts.dim_log_type as l on r.log_type_key = l.log_type_key
"""

# Every job, with or without an absolute submit time (the left-out counts read this)
ALL_JOBS_SQL = """
select
    j.job_id,
    c.cluster_name,
    u.user_name,
    j.submit_time_utc,
    coalesce(j.run_s, j.reported_duration_s) as duration_s,
    j.gpu_num,
    j.cpu_num,
    j.node_num,
    t.job_type,
    s.job_state,
    j._data_origin
from marts.fct_job as j
inner join marts.dim_cluster as c on j.cluster_key = c.cluster_key
inner join marts.dim_user as u on j.user_key = u.user_key
inner join marts.dim_job_type as t on j.job_type_key = t.job_type_key
inner join marts.dim_job_state as s on j.job_state_key = s.job_state_key
"""
# The jobs a window can select: those with an absolute submit time
JOBS_SQL = ALL_JOBS_SQL + "where j.submit_time_utc is not null\n"
# The Helios simulator's trace_process start: rows submitted before it are dropped by its reader
HELIOS_READER_START = "2020-04-01 00:00:00"
# The date range of its 'Sept' experiment (simulator.py trace_range), counted from HELIOS_READER_START
HELIOS_READER_RANGE = ("2020-09-01 00:00:00", "2020-09-26 23:59:00")


@dataclass(frozen=True)
class ExportFormat:
    name: str  # the CLI's FORMAT and the asset key export/<name>
    kind: Kind
    file_name: str  # default file under $WAREHOUSE_DIR/exports/
    writer: Writer
    consumer: str
    columns: tuple[str, ...]
    select: str  # the written columns, over the `exported` relation (arrival_s = rebased, scaled arrival)
    keeps_failed: bool = True  # requests: are failed requests (response tokens 0) written?
    description: str = ""
    one_cluster: bool = False  # jobs: the file holds one cluster (--cluster is required)
    # columns the consumer wants that the source lacks: column -> what is written instead (in the sidecar)
    substitutes: tuple[tuple[str, str], ...] = ()
    time_note: str = ""  # how the arrival is written, where not as seconds (in the sidecar's time_rule)

    @property
    def order_by(self) -> str:
        return REQUEST_KEY if self.kind == "requests" else JOB_KEY

    @property
    def fact(self) -> str:
        return "fct_request" if self.kind == "requests" else "fct_job"

    @property
    def marts(self) -> tuple[str, ...]:
        """The marts it reads (the asset's dependencies)."""
        if self.kind == "requests":
            return ("fct_request", "dim_model", "dim_log_type")
        return ("fct_job", "dim_cluster", "dim_user", "dim_job_type", "dim_job_state")


FORMATS: dict[str, ExportFormat] = {
    f.name: f
    for f in (
        ExportFormat(
            name="burstgpt",
            kind="requests",
            file_name="burstgpt.csv",
            writer="csv",
            consumer="vLLM benchmarks, dataset 'burstgpt' (vllm/benchmarks/datasets.py BurstGPTDataset: "
            "columns read by position)",
            columns=("Timestamp", "Model", "Request tokens", "Response tokens", "Total tokens", "Log Type"),
            select='arrival_s as "Timestamp", model_name as "Model", request_tokens as "Request tokens", '
            'response_tokens as "Response tokens", total_tokens as "Total tokens", log_type as "Log Type"',
            keeps_failed=True,
            description="The 6-column BurstGPT CSV (files 1-2's layout) that positional readers expect.",
        ),
        ExportFormat(
            name="mooncake",
            kind="requests",
            file_name="mooncake.jsonl",
            writer="mooncake",
            consumer="aiperf --custom-dataset-type mooncake_trace --fixed-schedule, NVIDIA Dynamo benchmarks "
            "(ai-dynamo/aiperf db4f639: aiperf/dataset/loader/models.py MooncakeTrace)",
            columns=("timestamp", "input_length", "output_length", "hash_ids"),
            select="cast(round(arrival_s * 1000) as bigint) as timestamp, request_tokens as input_length, "
            "response_tokens as output_length, session_id",
            keeps_failed=False,
            description="Mooncake-style JSONL: arrival in ms, input/output tokens, 512-token block hash ids.",
        ),
        ExportFormat(
            name="vidur",
            kind="requests",
            file_name="vidur.csv",
            writer="csv",
            consumer="Vidur trace replay (microsoft/vidur 7d47513: "
            "vidur/request_generator/trace_replay_request_generator.py)",
            columns=("arrived_at", "num_prefill_tokens", "num_decode_tokens"),
            select="arrival_s as arrived_at, request_tokens as num_prefill_tokens, "
            "response_tokens as num_decode_tokens",
            keeps_failed=False,
            description="Vidur's trace-replay CSV: arrival in seconds, prefill and decode tokens.",
        ),
        ExportFormat(
            name="acme-jobs",
            kind="jobs",
            file_name="acme_jobs.csv",
            writer="csv",
            consumer="cluster-scheduler simulators (Helios/Philly-style job traces: submit, duration, GPUs)",
            columns=(
                *("job_id", "cluster", "user", "submit_time", "duration"),
                *("gpu_num", "cpu_num", "node_num", "type", "state"),
            ),
            select="job_id, cluster_name as cluster, user_name as user, arrival_s as submit_time, "
            "duration_s as duration, gpu_num, cpu_num, node_num, job_type as type, job_state as state",
            description="An AcmeTrace job trace: submit time, run duration, GPUs, type and final state.",
        ),
        ExportFormat(
            name="helios",
            kind="jobs",
            file_name="helios_cluster_log.csv",
            writer="csv",
            consumer="Helios simulator (S-Lab-System-Group/HeliosArtifact bdaae109c21f, "
            "framework/QSSF Service/utils.py trace_process)",
            columns=(
                *("job_id", "user", "vc", "jobname", "gpu_num", "cpu_num", "node_num", "state"),
                *("submit_time", "duration"),
            ),
            select="job_id, user_name as user, cluster_name as vc, job_type as jobname, "
            "cast(gpu_num as bigint) as gpu_num, cast(cpu_num as bigint) as cpu_num, "
            "node_num, job_state as state, strftime(submit_at, '%Y-%m-%d %H:%M:%S') as submit_time, "
            "cast(round(duration_s) as bigint) as duration",
            description="One cluster's Helios cluster_log.csv: date-time submit_time, vc (the cluster), "
            "jobname (the job type), GPUs, run seconds.",
            one_cluster=True,
            substitutes=(
                ("vc", "the cluster's name (AcmeTrace has no virtual clusters): one VC per file"),
                ("jobname", "the job type (AcmeTrace has no job names)"),
            ),
            time_note="submit_time written as window start + arrival, a naive UTC 'YYYY-MM-DD HH:MM:SS' "
            "(whole seconds, truncated)",
        ),
    )
}


def sql_string(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("'", "''") + "'"
