"""What a run rebuilds: the one decision the automation's runs and ``trace-warehouse run`` share.

A run carries ``trace-warehouse/trigger``. The automation's runs (``automation``) and a plain
``trace-warehouse run`` (``run``) rebuild only what changed: landing skips unchanged files, the raw load skips
unchanged files on sha256, the checks reuse their stored results, and the dbt step is skipped when no raw
partition changed since the last dbt build (``pipelines/lake/pending.py``) — then the steps downstream of the
marts (fits, reports, dbt docs) are skipped by Dagster, since dbt materialized nothing they read.
``trace-warehouse run --all`` (``run-all``) and runs started in the UI rebuild what they select.

A skipped stage says so in one log line, ``<stage>: skipped — <reason>``, which the progress display and the
run's summary show.

A changes-only run of the whole graph first asks :func:`graph_unchanged`, which needs neither Dagster nor the
definitions: once a run has left every asset of the graph materialized it writes a stamp into the Dagster
instance (:func:`stamp_if_graph_built`), and while the stamp matches the code and settings, no upstream file
changed, no raw partition is pending and dbt has built on the engine, :func:`stale_roots` would find nothing
to run. So a re-run with nothing changed ends before the definitions load. Importing this module does not
import Dagster.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pipelines.settings import Settings

if TYPE_CHECKING:
    import dagster as dg

    from pipelines.sources.trace_source import UpstreamChange

TRIGGER_TAG = "trace-warehouse/trigger"
# The triggers whose runs rebuild only what changed (not a user's forced rebuild).
CHANGES_ONLY_TRIGGERS = frozenset({"automation", "run"})
CLI_TRIGGER, CLI_ALL_TRIGGER = "run", "run-all"
# Run tag that makes the dbt asset rebuild every partition instead of only the changed ones.
FULL_REBUILD_TAG = "trace-warehouse/dbt"

NO_CHANGE = "no partition changed since the last build"
MARTS_UNCHANGED = "marts unchanged"
_SKIPPED = re.compile(r"^(?P<stage>[\w/ ]+): skipped — (?P<reason>.+)$")


def dbt_skip_reason(
    tags: Mapping[str, str], pending: Mapping[str, set[str]], built_before: bool
) -> str | None:
    """Why the dbt step of a run with ``tags`` need not invoke dbt, or None when it must: a changes-only run,
    a previous dbt build in this warehouse, and no raw partition pending since."""
    if tags.get(FULL_REBUILD_TAG) == "full" or tags.get(TRIGGER_TAG) not in CHANGES_ONLY_TRIGGERS:
        return None
    if not built_before or any(pending.values()):
        return None
    return NO_CHANGE


def skip_message(stage: str, reason: str) -> str:
    return f"{stage}: skipped — {reason}"


def parse_skip(message: str) -> tuple[str, str] | None:
    """``(stage, reason)`` of a :func:`skip_message` line, else None."""
    m = _SKIPPED.match(message.strip())
    return (m["stage"], m["reason"]) if m else None


def skipped_downstream(dbt_skipped: bool) -> str:
    """Why Dagster skipped a step downstream of the dbt models."""
    return MARTS_UNCHANGED if dbt_skipped else "an upstream step produced nothing"


# Why a layer of the selection is left out of a changes-only run (pipelines/progress.py's layers).
LEFT_OUT = {
    "landing": "no upstream file changed since it was landed",
    "raw": "nothing new landed",
    "dbt": NO_CHANGE,
    "fits": MARTS_UNCHANGED,
    "reports": MARTS_UNCHANGED,
}


def stale_roots(
    settings: Settings,
    instance: dg.DagsterInstance,
    assets: Sequence[dg.AssetsDefinition],
    keys: set[dg.AssetKey],
) -> set:
    """The assets among ``keys`` a changes-only run starts from (it runs them and their downstream): the
    landing asset of every family with a changed upstream file (:func:`~pipelines.sources.changes.
    detect_changes`, what ``upstream_change_sensor`` reports), the dbt models reading a family with raw
    partitions pending (:mod:`pipelines.lake.pending`, what the dbt step builds) and every asset never
    materialized in this warehouse (a first run builds everything), and the dbt models when dbt never built on
    the settings' engine."""
    import dagster as dg

    from pipelines.defs.keys import landing_key, raw_key
    from pipelines.progress import layer_of
    from pipelines.warehouse.dbt_build import pending_partitions

    roots = keys - built_keys(instance, keys)
    changed = {change.family for change in upstream_changes(settings)}
    roots |= {landing_key(fam) for fam in changed} & keys
    if not _dbt_built(settings):  # never built on this engine (say, --engine spark)
        roots |= {key for key in keys if layer_of(key.to_user_string()) == "dbt"}
    waiting = [fam for fam, parts in pending_partitions(settings).items() if parts]
    waiting_raw = [raw_key(fam) for fam in waiting]
    if waiting_raw:
        children = dg.AssetSelection.assets(*waiting_raw).downstream(depth=1, include_self=False)
        roots |= children.resolve(assets, allow_missing=True)
    return roots & keys


def upstream_changes(settings: Settings) -> list[UpstreamChange]:
    """The upstream files that differ from what was landed, in the source the settings name."""
    from pipelines.sample.source import trace_source
    from pipelines.sources.changes import detect_changes

    return detect_changes(settings, source=trace_source(settings))


def built_keys(instance: dg.DagsterInstance, keys: Iterable[dg.AssetKey]) -> set:
    """The assets among ``keys`` materialized at least once in ``instance``."""
    return {
        record.asset_entry.asset_key
        for record in instance.get_asset_records(sorted(keys, key=lambda k: k.path))
        if record.asset_entry.last_materialization is not None
    }


def _dbt_built(settings: Settings) -> bool:
    from pipelines.warehouse.dbt_build import target_path

    return (settings.dbt_runs_dir / target_path(settings.engine).name / "run_results.json").exists()


GRAPH_BUILT = "trace-warehouse-graph-built.json"  # in $DAGSTER_HOME: a new or wiped instance has none


def _graph_identity(settings: Settings) -> dict[str, str]:
    """What the asset graph is made of, cheaply (sizes and mtimes, no file read): this package's modules and
    the dbt manifest the definitions load, on the settings' engine and source."""
    from pipelines.warehouse.dbt_build import DBT_PROJECT_DIR, target_path

    files = sorted(Path(__file__).resolve().parents[1].rglob("*.py"))
    files.append(DBT_PROJECT_DIR / target_path(settings.engine) / "manifest.json")
    digest = hashlib.sha256()
    for path in files:
        stat = path.stat() if path.exists() else None
        digest.update(f"{path}:{stat and (stat.st_size, stat.st_mtime_ns)}\n".encode())
    return {"engine": settings.engine, "source": settings.source, "code": digest.hexdigest()}


def stamp_if_graph_built(settings: Settings, instance: dg.DagsterInstance, keys: set[dg.AssetKey]) -> None:
    """Stamp the instance when every asset of the graph (``keys``: what a run without selection selects) is
    materialized in it: the next changes-only run may then decide without the definitions."""
    from pipelines.atomic_write import write_json

    if built_keys(instance, keys) == keys:
        write_json(settings.dagster_home / GRAPH_BUILT, _graph_identity(settings), indent=1)


def graph_unchanged(settings: Settings) -> bool:
    """Whether a changes-only run of the whole graph has nothing to run, decided without Dagster: the stamp of
    :func:`stamp_if_graph_built` matches, dbt built on the engine, no raw partition is pending and no upstream
    file changed (the same facts :func:`stale_roots` reads; the listing and HEAD requests last)."""
    from pipelines.warehouse.dbt_build import pending_partitions

    stamp = settings.dagster_home / GRAPH_BUILT
    try:
        recorded = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        recorded == _graph_identity(settings)
        and _dbt_built(settings)
        and not any(pending_partitions(settings).values())
        and not upstream_changes(settings)
    )
