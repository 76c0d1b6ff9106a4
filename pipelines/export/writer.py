"""Write one replay export: read a window of the marts read-only, stream it to a file, describe it beside.

The rows never pass through Python for the CSV formats: DuckDB's ``COPY (select … order by <unique key>)``
streams them to the file in bounded memory (its sort spills to disk past ``TRACE_DUCKDB_MEMORY_LIMIT``), and
the order makes the bytes a function of the window. Mooncake JSONL needs the block-hash rule, so its rows
stream through Python in batches (only the open sessions' prefix ids are kept). Files are written to a temp
name and renamed, so a reader never sees half an export.

Beside every export, ``<file>.meta.json`` says what it is: format, consumer, window, filters, speed, the
rules applied, row count and token sums, sha256, and where the rows came from (``data_origin``: ``real``,
``synthetic`` or ``mixed``, from the marts' ``_data_origin``). The CSV itself carries no comment line, as
positional and pandas readers would take it for a row.

The warehouse is read as ``trace-warehouse sql`` reads it (:func:`pipelines.warehouse.db.reader`), while
holding the writer lock as the report assets do: DuckDB refuses a writer while a reader has the file open,
so a run that starts during an export waits for it rather than failing.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pipelines.atomic_write import replacing, write_json
from pipelines.export.formats import ALL_JOBS_SQL, FORMATS, JOBS_SQL, REQUESTS_SQL, ExportFormat, sql_string
from pipelines.export.hash_ids import BLOCK_SIZE, RULE, HashIds
from pipelines.export.job_effects import job_effects, unclocked_jobs, unclocked_text
from pipelines.export.window import JobWindow, RequestWindow, WindowError, job_window, request_window
from pipelines.settings import Settings

SIDECAR_SUFFIX = ".meta.json"
FETCH_ROWS = 10_000
TRACE_CLOCK = "BurstGPT trace seconds: since 00:00 (UTC+8) of the trace's first day (its date is unpublished)"
FAILED_RULE = {
    True: "kept: failed requests (Response tokens = 0) are written, as in the upstream files",
    False: "left out: failed requests (Response tokens = 0) are not written (nothing to replay)",
}
NO_DURATION_RULE = "jobs with no duration (still RUNNING: no end time) are left out"
# The filters of each kind: (the ExportRequest attribute, the column it selects on, its CLI flag).
FILTERS = {
    "requests": (("model", "model_name", "--model"), ("log_type", "log_type", "--log-type")),
    "jobs": (("cluster", "cluster_name", "--cluster"),),
}


class ExportError(ValueError):
    """An export that cannot be written: unknown format or filter value, empty window, no marts yet."""


@dataclass(frozen=True)
class ExportRequest:
    format: str
    window: tuple[str, str] = ("start", "end")
    model: str | None = None
    log_type: str | None = None
    cluster: str | None = None
    speed: float = 1.0
    out: Path | None = None


@dataclass(frozen=True)
class ExportResult:
    path: Path
    sidecar: Path
    meta: dict[str, Any] = field(repr=False)

    @property
    def rows(self) -> int:
        return int(self.meta["rows"])

    @property
    def synthetic_rows(self) -> int:
        return int(self.meta["synthetic_rows"])


def sidecar_path(path: Path) -> Path:
    return path.with_name(path.name + SIDECAR_SUFFIX)


def export_format(name: str) -> ExportFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise ExportError(f"unknown export format {name!r}: one of {', '.join(FORMATS)}") from None


def _check_request(fmt: ExportFormat, request: ExportRequest) -> None:
    if not (math.isfinite(request.speed) and request.speed > 0):
        raise ExportError(f"--speed must be a positive number, not {request.speed!r}")
    if fmt.kind == "jobs" and (request.model or request.log_type):
        raise ExportError(f"{fmt.name} exports jobs: --model and --log-type apply to request formats")
    if fmt.kind == "requests" and request.cluster:
        raise ExportError(
            f"{fmt.name} exports requests: --cluster applies to job formats (acme-jobs, helios)"
        )
    if fmt.one_cluster and not request.cluster:
        raise ExportError(f"{fmt.name} writes one cluster's trace: pass --cluster NAME")


def _where(conditions: list[str]) -> str:
    return " and ".join(conditions) or "true"


def _query(con, sql: str, fmt: ExportFormat) -> list[tuple]:
    import duckdb

    try:
        return con.execute(sql).fetchall()
    except duckdb.CatalogException as exc:
        raise ExportError(
            f"marts.{fmt.fact} is not built yet in this warehouse ({str(exc).splitlines()[0]}): "
            "run `trace-warehouse run` (or `make run`) first"
        ) from None


def _check_value(con, fmt: ExportFormat, column: str, value: str | None, flag: str) -> None:
    """``value`` must be one the fact has (the dimensions also hold documented values never seen)."""
    if value is None:
        return
    base = REQUESTS_SQL if fmt.kind == "requests" else ALL_JOBS_SQL
    known = [r[0] for r in _query(con, f"select distinct {column} from ({base}) order by 1", fmt)]
    if value not in known:
        raise ExportError(
            f"unknown {flag} {value!r}: the warehouse has {', '.join(map(str, known)) or 'none'}"
        )
    timed = (
        fmt.kind == "requests"
        or _query(con, f"select count(*) from ({JOBS_SQL}) where {column} = {sql_string(value)}", fmt)[0][0]
    )
    if not timed:
        ((_, jobs),) = unclocked_jobs(con, f"{column} = {sql_string(value)}")
        raise ExportError(
            f"{flag} {value}: {unclocked_text(value, jobs)}, so no job export (windowed in UTC) can place "
            f"them; their seconds since that start are staging.stg_acme__{value}_jobs.submit_offset_s "
            "(`trace-warehouse sql`), and their run and queue seconds are in marts.fct_job"
        )


@dataclass(frozen=True)
class _Selection:
    """The SQL of one export: ``windowed`` (every row of the window) and ``exported`` (the rows written,
    with ``arrival_s``), plus the resolved window for the sidecar."""

    ctes: str
    where: str  # the filters (cluster, model, log type), over the fact's rows
    start: float | datetime
    end: float | datetime | None


def _timestamp(value: datetime) -> str:
    return f"timestamp '{value.isoformat(sep=' ')}'"


def _selection(
    con, fmt: ExportFormat, request: ExportRequest, window: RequestWindow | JobWindow
) -> _Selection:
    """The window of the fact's rows that match the filters: requests on the trace clock (``timestamp_s``,
    seconds), jobs in UTC (``submit_time_utc``); an open start is the first row selected."""
    requests = fmt.kind == "requests"
    column = "timestamp_s" if requests else "submit_time_utc"
    literal = repr if requests else _timestamp
    filters = [
        f"{name} = {sql_string(value)}"
        for attribute, name, _ in FILTERS[fmt.kind]
        if (value := getattr(request, attribute)) is not None
    ]
    base = f"select * from ({REQUESTS_SQL if requests else JOBS_SQL}) where {_where(filters)}"
    first = window.start
    if first is None:
        first = _query(con, f"select min({column}) from ({base})", fmt)[0][0]
    if first is None:
        raise ExportError(f"no {fmt.kind} match {_filters_text(request)}")
    start, end = window.resolve(float(first) if requests else first)  # type: ignore[arg-type]
    bounds = [f"{column} >= {literal(start)}"] + ([f"{column} < {literal(end)}"] if end is not None else [])
    if requests:
        since_start = f"({column} - {start!r})"
        keep = "true" if fmt.keeps_failed else "not is_failed"
    else:
        since_start = f"(epoch_us({column}) - epoch_us({_timestamp(start)})) / 1e6"  # type: ignore[arg-type]
        keep = "duration_s is not null"
    arrival = f"{since_start} / {request.speed!r}"
    # jobs: the scaled submit as a date-time again (window start + arrival), for date-time formats
    submit_at = (
        ""
        if requests
        else f", {_timestamp(start)} + to_microseconds(cast(round({arrival} * 1e6) as bigint)) as submit_at"  # type: ignore[arg-type]
    )
    ctes = (
        f"with windowed as (select * from ({base}) where {_where(bounds)}), "
        f"exported as (select *, {arrival} as arrival_s{submit_at} from windowed where {keep})"
    )
    return _Selection(ctes, _where(filters), start, end)


def _filters_text(request: ExportRequest) -> str:
    parts = [
        f"{name}={value!r}"
        for name, value in (
            ("model", request.model),
            ("log type", request.log_type),
            ("cluster", request.cluster),
        )
        if value is not None
    ]
    return ", ".join(parts) or "(no filter)"


def _stats(con, fmt: ExportFormat, selection: _Selection) -> dict[str, Any]:
    origin = (
        "count(*) filter (where _data_origin = 'real') as real_rows, "
        "count(*) filter (where _data_origin <> 'real' or _data_origin is null) as synthetic_rows"
    )
    if fmt.kind == "requests":
        sql = (
            f"{selection.ctes} select (select count(*) from windowed), "
            "(select count(*) filter (where is_failed) from windowed), count(*), "
            "coalesce(sum(request_tokens), 0), coalesce(sum(response_tokens), 0), "
            f"coalesce(sum(total_tokens), 0), {origin} from exported"
        )
        names = (
            "rows_in_window", "failed_requests_in_window", "rows", "request_tokens", "response_tokens",
            "total_tokens", "real_rows", "synthetic_rows",
        )  # fmt: skip
    else:
        sql = (
            f"{selection.ctes} select (select count(*) from windowed), count(*), coalesce(sum(gpu_num), 0), "
            f"coalesce(sum(duration_s), 0), coalesce(sum(duration_s * gpu_num), 0), {origin} from exported"
        )
        names = (
            "rows_in_window",
            "rows",
            "gpu_num",
            "duration_s",
            "gpu_seconds",
            "real_rows",
            "synthetic_rows",
        )
    row = _query(con, sql, fmt)[0]
    return {name: (float(v) if isinstance(v, float) else int(v)) for name, v in zip(names, row, strict=True)}


def _write_csv(con, fmt: ExportFormat, selection: _Selection, target: Path) -> None:
    sql = f"{selection.ctes} select {fmt.select} from exported order by {fmt.order_by}"
    con.execute(f"copy ({sql}) to {sql_string(str(target))} (format csv, header true, delimiter ',')")


def _write_mooncake(con, fmt: ExportFormat, selection: _Selection, target: Path) -> dict[str, Any]:
    hashes = HashIds()
    cursor = con.execute(f"{selection.ctes} select {fmt.select} from exported order by {fmt.order_by}")
    with target.open("w", encoding="utf-8", newline="\n") as out:
        while rows := cursor.fetchmany(FETCH_ROWS):
            out.writelines(
                # json.dumps's own layout, written directly: integers only, so nothing needs escaping
                f'{{"timestamp": {int(timestamp)}, "input_length": {int(input_length)}, '
                f'"output_length": {int(output_length)}, '
                f'"hash_ids": [{", ".join(map(str, hashes.assign(int(input_length), session_id)))}]}}\n'
                for timestamp, input_length, output_length, session_id in rows
            )
    return {"block_size": BLOCK_SIZE, "rule": RULE, "distinct_ids": hashes.next_id}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def data_origin(real_rows: int, synthetic_rows: int) -> str:
    if synthetic_rows == 0:
        return "real"
    return "synthetic" if real_rows == 0 else "mixed"


def _bound(value: float | datetime | None) -> float | str | None:
    return value.isoformat() if isinstance(value, datetime) else value


def _meta(
    fmt: ExportFormat,
    request: ExportRequest,
    window: tuple[str, str],
    selection: _Selection,
    stats: Mapping[str, Any],
) -> dict[str, Any]:
    requests = fmt.kind == "requests"
    meta: dict[str, Any] = {
        "format": fmt.name,
        "description": fmt.description,
        "consumer": fmt.consumer,
        "columns": list(fmt.columns),
        "source": [f"marts.{m}" for m in fmt.marts],
        "window": {
            "requested": list(window),
            "start": _bound(selection.start),
            "end": _bound(selection.end),
            "half_open": True,
            "clock": TRACE_CLOCK if requests else "UTC (submit_time_utc)",
        },
        "filters": (
            {"model": request.model, "log_type": request.log_type}
            if requests
            else {"cluster": request.cluster}
        ),
        "speed": request.speed,
        "time_rule": (
            "arrival = (t - window start) / speed, in seconds"
            + (" (timestamp: milliseconds, rounded)" if fmt.writer == "mooncake" else "")
            + (f"; {fmt.time_note}" if fmt.time_note else "")
            + "; token counts and durations are not scaled"
        ),
        "order": fmt.order_by,
        **dict(stats),
    }
    if requests:
        meta["failed_requests"] = FAILED_RULE[fmt.keeps_failed]
    else:
        meta["duration_rule"] = (
            "run seconds (end_time - start_time); the file's reported duration where either is missing; "
            + NO_DURATION_RULE
        )
    if fmt.substitutes:
        meta["substituted_columns"] = dict(fmt.substitutes)
    meta["data_origin"] = data_origin(stats["real_rows"], stats["synthetic_rows"])
    if meta["data_origin"] != "real":
        meta["synthetic_notice"] = (
            f"SYNTHETIC: {stats['synthetic_rows']:,} of {stats['rows']:,} rows are generated sample rows, "
            "not real trace data"
        )
    return meta


def default_path(settings: Settings, fmt: ExportFormat) -> Path:
    return settings.exports_dir / fmt.file_name


def export(settings: Settings, request: ExportRequest) -> ExportResult:
    """Write ``request``'s export and its sidecar; raise :class:`ExportError` when it cannot be written."""
    from pipelines.warehouse.db import reader, writer_lock

    fmt = export_format(request.format)
    _check_request(fmt, request)
    try:
        window = (
            request_window(*request.window, settings.burstgpt_start_date)
            if fmt.kind == "requests"
            else job_window(*request.window)
        )
    except WindowError as exc:
        raise ExportError(f"--window: {exc}") from None
    if not settings.duckdb_path.exists():
        raise ExportError(
            f"{settings.duckdb_path} does not exist yet: run `make run` or `trace-warehouse run` first"
        )
    path = (request.out or default_path(settings, fmt)).resolve()
    with writer_lock(settings, wait_message="export: waiting for the warehouse writer before reading"):
        con = reader(settings)
        try:
            con.execute(f"set memory_limit = {sql_string(settings.duckdb_memory_limit)}")
            for attribute, column, flag in FILTERS[fmt.kind]:
                _check_value(con, fmt, column, getattr(request, attribute), flag)
            selection = _selection(con, fmt, request, window)
            stats = _stats(con, fmt, selection)
            what = "requests" if fmt.kind == "requests" else "jobs"
            if stats["rows_in_window"] == 0:
                raise ExportError(
                    f"no {what} in the window [{_bound(selection.start)}, {_bound(selection.end)}) "
                    f"for {_filters_text(request)}"
                )
            if stats["rows"] == 0:
                raise ExportError(
                    f"none of the {stats['rows_in_window']} {what} in the window can be replayed "
                    f"({FAILED_RULE[False] if what == 'requests' else NO_DURATION_RULE})"
                )
            with replacing(path) as tmp:
                extra = (
                    _write_mooncake(con, fmt, selection, tmp)
                    if fmt.writer == "mooncake"
                    else _write_csv(con, fmt, selection, tmp)
                )
            effects = (
                job_effects(con, fmt, selection.ctes, selection.where, request.cluster, stats["rows"])
                if fmt.kind == "jobs"
                else []
            )
        finally:
            con.close()
    meta = _meta(fmt, request, request.window, selection, stats)
    meta.setdefault("consumer_effects", []).extend(effects)
    if extra:
        meta["hash_ids"] = extra
    meta["file"] = path.name
    meta["bytes"] = path.stat().st_size
    meta["sha256"] = _sha256(path)
    sidecar = sidecar_path(path)
    write_json(sidecar, meta, indent=2)
    return ExportResult(path, sidecar, meta)
