"""Raw partitions whose content changed since dbt last built the facts that read them.

A raw load records the partitions it wrote or removed (content hash changed) under
``lake/_pending/<family>.json``; the dbt asset passes their union to dbt as the ``partition_keys``
var — incremental facts then replace exactly those partitions — and clears what it consumed. Both sides
hold the warehouse writer lock while they read and write these files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from pipelines.settings import Settings

# Which fact model reads which raw family: a family's pending keys are consumed only by a build that
# included every fact it feeds.
FACTS_BY_FAMILY: Mapping[str, tuple[str, ...]] = {
    "acme__seren_jobs": ("fct_job",),
    "acme__kalos_jobs": ("fct_job",),
    "acme__helios_jobs": ("fct_job",),
    "acme__philly_jobs": ("fct_job",),
    "acme__pai_jobs": ("fct_job",),
    "burstgpt__requests": ("fct_request",),
    "acme__gpu_metrics": ("fct_node_metric",),
    "acme__node_metrics": ("fct_node_metric",),
    "acme__ipmi_power": ("fct_server_power",),
}


def _path(settings: Settings, family: str) -> Path:
    return settings.lake_dir / "_pending" / f"{family}.json"


def add_pending(settings: Settings, family: str, keys: Iterable[str]) -> set[str]:
    """Add partition keys to the family's pending set; returns the set now pending.

    Families no fact reads (cluster_summary, the without-fails twins) feed only full-rebuilt tables.
    """
    if family not in FACTS_BY_FAMILY:
        return set()
    path = _path(settings, family)
    current = set(json.loads(path.read_text("utf-8"))) if path.exists() else set()
    updated = current | set(keys)
    if updated != current:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(sorted(updated)), encoding="utf-8")
        os.replace(tmp, path)
    return updated


def pending(settings: Settings) -> dict[str, set[str]]:
    folder = settings.lake_dir / "_pending"
    if not folder.is_dir():
        return {}
    return {p.stem: set(json.loads(p.read_text("utf-8"))) for p in sorted(folder.glob("*.json"))}


def consume(settings: Settings, consumed: Mapping[str, set[str]]) -> None:
    """Remove keys a successful build replaced (keys added meanwhile stay)."""
    for family, keys in consumed.items():
        path = _path(settings, family)
        if not path.exists():
            continue
        left = set(json.loads(path.read_text("utf-8"))) - keys
        if left:
            path.write_text(json.dumps(sorted(left)), encoding="utf-8")
        else:
            path.unlink()


def consumable(pending_keys: Mapping[str, set[str]], built_models: Iterable[str]) -> dict[str, set[str]]:
    """The pending families whose every fact model is among ``built_models`` (model names)."""
    built = set(built_models)
    return {
        family: keys for family, keys in pending_keys.items() if set(FACTS_BY_FAMILY.get(family, ())) <= built
    }
