"""``trace-warehouse status``: what the warehouse holds now, read without writing anything.

Per family (``meta.file_loads`` in ``trace.duckdb``, read-only, from the published snapshot while a run
writes): files, rows, rejected lines, data origin, when it was last loaded; from the lake: rows in
quarantine and raw partitions waiting for dbt (``lake/_pending``). Then the last run (from the Dagster
instance, handed in by the CLI), whether anything changed upstream since the last landing (the sensor's
check: a stat per mirror file or a HEAD per remote file, nothing fetched), and where the docs are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb

from pipelines.families.registry import family_keys
from pipelines.lake.pending import pending
from pipelines.lake.relation import has_partition_files, partitioned_scan
from pipelines.run_log import latest_log
from pipelines.settings import Settings
from pipelines.warehouse.db import reader

NOT_BUILT = "no warehouse in {dir} yet: run `make run` (or `trace-warehouse run`) to build it"


class NoWarehouseError(RuntimeError):
    """``WAREHOUSE_DIR`` holds no ``trace.duckdb``: nothing was built there."""


@dataclass(frozen=True)
class FamilyStatus:
    family: str
    files: int
    rows: int
    rejected: int
    quarantined: int
    origin: str  # real | synthetic | mixed, or several joined by "+"
    last_loaded: str
    pending_partitions: int


@dataclass(frozen=True)
class RunInfo:
    """The last run in the Dagster instance (``pipelines/defs/run_history.py`` reads it)."""

    run_id: str
    status: str  # SUCCESS, FAILURE, STARTED, ...
    started: datetime | None
    ended: datetime | None
    tags: dict[str, str]


def _file_loads(settings: Settings) -> list[tuple]:
    con = reader(settings)
    try:
        return con.execute(
            # wide utilization files load one row per non-empty cell (`values`), other files one per line
            'select family, count(*), sum(coalesce("values", loaded)), sum(rejected), '
            "string_agg(distinct data_origin, '+' order by data_origin), max(loaded_at) "
            "from meta.file_loads group by family order by family"
        ).fetchall()
    except duckdb.CatalogException:  # nothing loaded yet (only landed)
        return []
    finally:
        con.close()


def quarantined_rows(settings: Settings, family: str) -> int:
    """Raw rows of ``family`` in quarantine (a row broken by two rules counts once)."""
    folder = settings.quarantine_dir / family
    if not has_partition_files(folder):
        return 0
    con = duckdb.connect()
    try:
        (n,) = con.execute(
            "select count(*) from (select distinct * exclude (rule, details, _partition) "
            f"from {partitioned_scan(folder)})"
        ).fetchone()
    finally:
        con.close()
    return int(n)


def family_statuses(settings: Settings) -> list[FamilyStatus]:
    if not settings.duckdb_path.exists():
        raise NoWarehouseError(NOT_BUILT.format(dir=settings.warehouse_dir))
    waiting = pending(settings)
    return [
        FamilyStatus(
            family=family,
            files=int(files),
            rows=int(rows or 0),
            rejected=int(rejected or 0),
            quarantined=quarantined_rows(settings, family),
            origin=str(origin or "-"),
            last_loaded=str(loaded_at or "-")[:19].replace("T", " "),
            pending_partitions=len(waiting.get(family, ())),
        )
        for family, files, rows, rejected, origin, loaded_at in _file_loads(settings)
    ]


def upstream_changes(settings: Settings) -> str:
    """One line: what changed upstream since the last landing, or why it could not be told."""
    from pipelines.sample.source import trace_source
    from pipelines.sources.changes import detect_changes

    if settings.source != "remote" and (settings.mirror_dir is None or not settings.mirror_dir.is_dir()):
        return f"not checked: the mirror {settings.mirror_dir} is not there"
    try:
        changes = detect_changes(settings, source=trace_source(settings))
    except Exception as exc:  # offline, a server error: status still shows the rest
        return f"not checked ({type(exc).__name__}: {exc})"
    if not changes:
        return "nothing changed since the last landing"
    families = sorted({c.family for c in changes})
    return f"{len(changes)} file(s) changed since the last landing, in {', '.join(families)}: `trace-warehouse run`"


def _table(statuses: list[FamilyStatus]) -> list[str]:
    header = (
        f"{'family':<34} {'files':>5} {'rows':>12} {'rejected':>9} {'quarantined':>11} "
        f"{'origin':<15} {'last loaded (UTC)':<19} {'pending':>7}"
    )
    out = [header, "-" * len(header)]
    for s in statuses:
        out.append(
            f"{s.family:<34} {s.files:>5} {s.rows:>12,} {s.rejected:>9,} {s.quarantined:>11,} "
            f"{s.origin:<15} {s.last_loaded:<19} {s.pending_partitions:>7}"
        )
    loaded = {s.family for s in statuses}
    missing = [key for key in family_keys() if key not in loaded]
    if missing:
        out.append(f"not loaded yet: {', '.join(missing)}")
    return out


def _when(t: datetime | None) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S UTC") if t else "?"


def _run_lines(settings: Settings, run: RunInfo | None) -> list[str]:
    if run is None:
        return [f"last run: none recorded in {settings.dagster_home}"]
    took = f", {(run.ended - run.started).total_seconds():.0f}s" if run.started and run.ended else ""
    source = run.tags.get("trace-warehouse/source")
    out = [f"last run: {run.status} — started {_when(run.started)}{took}; run id {run.run_id}"]
    if source:
        out[0] += f"; source {source}"
    log = latest_log(settings)
    if log is not None:
        out.append(f"last run log: {log}")
    return out


def _where(label: str, path: Path, url: str) -> str:
    return f"{label:<12} {path}  ({url})" if path.exists() else f"{label:<12} not built yet ({path})"


def _docs_lines(settings: Settings) -> list[str]:
    from pipelines.docs_server import docs_link

    gx = settings.docs_dir / "gx" / "index.html"
    dbt = settings.docs_dir / "dbt" / "static_index.html"
    report = settings.report_dir / "report.md"
    return [
        _where("Data Docs", gx, docs_link(settings, gx)),
        _where("dbt docs", dbt, docs_link(settings, dbt)),
        _where("report", report, docs_link(settings, report)),
        "(the links work while `trace-warehouse docs` runs; `make dev` starts it beside the UI)",
    ]


def render_status(
    settings: Settings, statuses: list[FamilyStatus], run: RunInfo | None, upstream: str
) -> str:
    lines = [f"warehouse {settings.warehouse_dir} (source {settings.source}, engine {settings.engine})", ""]
    lines += _table(statuses)
    lines += ["", *_run_lines(settings, run), f"upstream: {upstream}", "", *_docs_lines(settings)]
    return "\n".join(lines)
