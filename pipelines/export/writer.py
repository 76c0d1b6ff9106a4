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

import dataclasses
import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pipelines.atomic_write import replacing, write_json
from pipelines.export.fidelity import Check, fidelity_checks
from pipelines.export.formats import ALL_JOBS_SQL, FORMATS, JOBS_SQL, REQUESTS_SQL, ExportFormat, sql_string
from pipelines.export.hash_ids import BLOCK_SIZE, HashIds, rule
from pipelines.export.job_effects import job_effects, unclocked_jobs, unclocked_text
from pipelines.export.request_effects import request_effect, request_effects
from pipelines.export.transforms import (
    GapModel,
    TransformError,
    TransformSpec,
    gap_model,
    redraw_arrivals,
    scale_tokens,
)
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


OverMax = Literal["drop", "clip"]
OVER_MAX_RULE = {
    "drop": "requests whose request + response tokens exceed max_tokens are not written",
    "clip": "requests over max_tokens are clipped: response to at most max_tokens - 1, then the request to "
    "max_tokens - response (each at least 1); total = request + response",
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
    max_tokens: int | None = None  # requests: prefill + decode above it are dropped or clipped (over_max)
    over_max: OverMax = "drop"
    block_size: int = BLOCK_SIZE  # mooncake: tokens per hash id
    rebase: bool = False  # requests: arrival 0 is the first request written, not the window's start
    session_ids: bool = False  # mooncake: write each line's BurstGPT Session ID as session_id
    session: str | None = None  # requests: one BurstGPT session (Session ID) only
    sessions_only: bool = False  # requests: only rows that belong to a session
    transform: TransformSpec | None = None  # requests: re-drawn arrivals, scaled lengths (transforms.py)


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
    if fmt.kind == "jobs" and (
        request.max_tokens is not None or request.rebase or request.session or request.sessions_only
        or (request.transform is not None and request.transform.active)
    ):  # fmt: skip
        raise ExportError(
            f"{fmt.name} exports jobs: --max-tokens, --rebase, the session slices and the transforms apply to "
            "request formats"
        )
    if request.max_tokens is not None and request.max_tokens < 2:
        raise ExportError(
            f"--max-tokens must be at least 2 (a prompt and a reply token), not {request.max_tokens}"
        )
    if request.over_max not in OVER_MAX_RULE:
        raise ExportError(f"--over-max must be one of {', '.join(OVER_MAX_RULE)}, not {request.over_max!r}")
    if fmt.writer != "mooncake" and (request.block_size != BLOCK_SIZE or request.session_ids):
        raise ExportError(f"{fmt.name}: --block-size and --session-ids apply to the mooncake format")
    if request.block_size < 1:
        raise ExportError(f"--block-size must be a positive number of tokens, not {request.block_size}")


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

    source_ctes: str  # windowed, kept (before --max-tokens) and source (the rows written, untransformed)
    where: str  # the filters (cluster, model, log type, session), over the fact's rows
    start: float | datetime
    end: float | datetime | None
    exported: str = "select * from source"  # the rows written: the source, or its transform

    @property
    def ctes(self) -> str:
        return f"{self.source_ctes}, exported as ({self.exported})"


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
    if request.session is not None:
        filters.append(f"session_id = {sql_string(request.session)}")
    elif request.sessions_only:
        filters.append("coalesce(session_id, '') <> ''")
    base = f"select * from ({REQUESTS_SQL if requests else JOBS_SQL}) where {_where(filters)}"
    first = window.start
    if first is None:
        first = _query(con, f"select min({column}) from ({base})", fmt)[0][0]
    if first is None:
        raise ExportError(f"no {fmt.kind} match {_filters_text(request)}")
    start, end = window.resolve(float(first) if requests else first)  # type: ignore[arg-type]
    bounds = [f"{column} >= {literal(start)}"] + ([f"{column} < {literal(end)}"] if end is not None else [])
    limited = "kept"
    if requests:
        keep = "true" if fmt.keeps_failed else "not is_failed"
        if request.max_tokens is not None and request.over_max == "drop":
            limited = f"(select * from kept where not ({_over(int(request.max_tokens))}))"
        elif request.max_tokens is not None:
            limited = f"(select * replace ({_clipped(int(request.max_tokens))}) from kept)"
        origin = f"(select min({column}) from {limited})" if request.rebase else repr(start)
        since_start = f"({column} - {origin})"
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
        f"kept as (select * from windowed where {keep}), "
        f"source as (select *, {arrival} as arrival_s{submit_at} from {limited})"
    )
    return _Selection(ctes, _where(filters), start, end)


TRANSFORMED = "transformed_rows"


@dataclass(frozen=True)
class _Transformed:
    spec: TransformSpec
    model: GapModel | None
    checks: list[Check]


def _transform(con, fmt: ExportFormat, selection: _Selection, request: ExportRequest) -> _Transformed | None:
    """Apply ``request.transform`` to the source rows (read whole, in order, as Arrow) and register the result
    as ``TRANSFORMED`` on ``con``; the fidelity checks compare the two."""
    spec = request.transform
    if spec is None or not spec.active:
        return None
    import pyarrow as pa

    rows = con.execute(
        f"{selection.source_ctes} select * from source order by {fmt.order_by}"
    ).to_arrow_table()
    source = {c: rows.column(c).to_numpy() for c in ("arrival_s", "request_tokens", "response_tokens")}
    try:
        model = gap_model(source["arrival_s"], spec) if spec.redraws_gaps else None
    except TransformError as exc:
        raise ExportError(str(exc)) from None
    written = {
        "arrival_s": redraw_arrivals(source["arrival_s"], model, spec.seed) if model else source["arrival_s"],
        "request_tokens": scale_tokens(source["request_tokens"], spec.input_scale),
        "response_tokens": scale_tokens(source["response_tokens"], spec.output_scale),
    }
    for name, values in written.items():
        rows = rows.set_column(rows.schema.get_field_index(name), name, pa.array(values))
    total = written["request_tokens"] + written["response_tokens"]
    rows = rows.set_column(rows.schema.get_field_index("total_tokens"), "total_tokens", pa.array(total))
    con.register(TRANSFORMED, rows)
    return _Transformed(spec, model, fidelity_checks(spec, source, written, model))


def _over(limit: int) -> str:
    """A request over ``limit`` tokens (prefill + decode), as a SQL condition."""
    return f"request_tokens + response_tokens > {limit}"


def _clipped(limit: int) -> str:
    """``select * replace`` expressions that bring a request within ``limit`` tokens (``OVER_MAX_RULE``)."""
    decode = f"least(greatest(response_tokens, 1), {limit - 1})"
    prefill = f"least(greatest(request_tokens, 1), {limit} - {decode})"
    over = _over(limit)
    return (
        f"case when {over} then {prefill} else request_tokens end as request_tokens, "
        f"case when {over} then {decode} else response_tokens end as response_tokens, "
        f"case when {over} then {prefill} + {decode} else total_tokens end as total_tokens"
    )


def _over_max(con, fmt: ExportFormat, selection: _Selection, request: ExportRequest) -> dict[str, Any] | None:
    """What ``--max-tokens`` did: the rows over the limit (dropped or clipped) and their tokens."""
    if request.max_tokens is None:
        return None
    limit = int(request.max_tokens)
    rows, tokens = _query(
        con,
        f"{selection.ctes} select count(*), coalesce(sum(request_tokens + response_tokens - {limit}), 0) "
        f"from kept where {_over(limit)}",
        fmt,
    )[0]
    return {"limit": limit, "over": request.over_max, "rule": OVER_MAX_RULE[request.over_max],
            "rows": int(rows), "tokens_over": int(tokens)}  # fmt: skip


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


def _write_mooncake(
    con, fmt: ExportFormat, selection: _Selection, target: Path, request: ExportRequest
) -> dict[str, Any]:
    hashes = HashIds(request.block_size)
    cursor = con.execute(f"{selection.ctes} select {fmt.select} from exported order by {fmt.order_by}")
    sessions = 0
    with target.open("w", encoding="utf-8", newline="\n") as out:
        while rows := cursor.fetchmany(FETCH_ROWS):
            for timestamp, input_length, output_length, session_id in rows:
                # json.dumps's own layout, written directly: integers and a UUID, nothing to escape
                ids = ", ".join(map(str, hashes.assign(int(input_length), session_id)))
                session = f', "session_id": "{session_id}"' if request.session_ids and session_id else ""
                sessions += bool(session)
                out.write(
                    f'{{"timestamp": {int(timestamp)}, "input_length": {int(input_length)}, '
                    f'"output_length": {int(output_length)}, "hash_ids": [{ids}]{session}}}\n'
                )
    written = {
        "block_size": request.block_size,
        "rule": rule(request.block_size),
        "distinct_ids": hashes.next_id,
    }
    if request.session_ids:
        written["session_id"] = (
            f"{sessions:,} lines carry their BurstGPT Session ID as session_id (aiperf groups the lines of one "
            "session_id into one conversation); lines without a session carry none"
        )
    return written


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
            f"arrival = (t - {'the first request written' if request.rebase else 'window start'}) / speed, in seconds"
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
            transformed = _transform(con, fmt, selection, request)
            if transformed is not None:
                selection = dataclasses.replace(selection, exported=f"select * from {TRANSFORMED}")
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
                    _write_mooncake(con, fmt, selection, tmp, request)
                    if fmt.writer == "mooncake"
                    else _write_csv(con, fmt, selection, tmp)
                )
            effects = (
                job_effects(con, fmt, selection.ctes, selection.where, request.cluster, stats["rows"])
                if fmt.kind == "jobs"
                else request_effects(con, fmt, selection.ctes, stats["rows"])
            )
            over_max = _over_max(con, fmt, selection, request)
        finally:
            con.close()
    meta = _meta(fmt, request, request.window, selection, stats)
    meta.setdefault("consumer_effects", []).extend(effects)
    if transformed is not None:
        meta["transform"] = {
            "spec": transformed.spec.to_json(),
            "rule": "pipelines/export/transforms.py: gaps re-drawn from a Gamma (seeded), lengths scaled; "
            "applied after the window, filters, --max-tokens and --speed",
            "gap_model": dataclasses.asdict(transformed.model) if transformed.model else None,
        }
        meta["fidelity"] = [c.to_json() for c in transformed.checks]
    if over_max is not None:
        meta["max_tokens"] = over_max
        if over_max["rows"]:
            verb = "drops" if request.over_max == "drop" else "clips"
            meta["consumer_effects"].insert(0, request_effect(
                "trace-warehouse export --max-tokens", verb, over_max["rows"],
                f"request + response tokens exceed {over_max['limit']:,} ({over_max['rule']})",
            ))  # fmt: skip
    if extra:
        meta["hash_ids"] = extra
    meta["file"] = path.name
    meta["bytes"] = path.stat().st_size
    meta["sha256"] = _sha256(path)
    sidecar = sidecar_path(path)
    write_json(sidecar, meta, indent=2)
    return ExportResult(path, sidecar, meta)
