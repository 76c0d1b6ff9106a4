"""Raw partitions whose content changed since dbt last built the facts that read them.

A raw load records the partitions it wrote or removed (content hash changed) under
``lake/_pending/<family>.json``; the dbt asset passes their union to dbt as the ``partition_keys``
var — incremental facts then replace exactly those partitions — and clears what it consumed. Both sides
hold the warehouse writer lock while they read and write these files.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from pipelines.atomic_write import write_json
from pipelines.families.registry import all_families, family
from pipelines.settings import Settings


def _path(settings: Settings, family_key: str) -> Path:
    return settings.lake_dir / "_pending" / f"{family_key}.json"


def add_pending(settings: Settings, family_key: str, keys: Iterable[str]) -> set[str]:
    """Add partition keys to the family's pending set; returns the set now pending.

    Families no partition model reads (cluster_summary, the without-fails twins) feed only full-rebuilt tables:
    their keys are recorded too, so that a change of theirs is a reason to build (any dbt build consumes them).
    """
    path = _path(settings, family_key)
    current = set(json.loads(path.read_text("utf-8"))) if path.exists() else set()
    updated = current | set(keys)
    if updated != current:
        write_json(path, sorted(updated))
    return updated


def pending(settings: Settings) -> dict[str, set[str]]:
    folder = settings.lake_dir / "_pending"
    if not folder.is_dir():
        return {}
    return {p.stem: set(json.loads(p.read_text("utf-8"))) for p in sorted(folder.glob("*.json"))}


def consume(settings: Settings, consumed: Mapping[str, set[str]]) -> None:
    """Remove keys a successful build replaced (keys added meanwhile stay)."""
    for family_key, keys in consumed.items():
        path = _path(settings, family_key)
        if not path.exists():
            continue
        left = set(json.loads(path.read_text("utf-8"))) - keys
        if left:
            write_json(path, sorted(left))
        else:
            path.unlink()


def consumable(pending_keys: Mapping[str, set[str]], built_models: Iterable[str]) -> dict[str, set[str]]:
    """The pending families whose every partition model is among ``built_models`` (model names)."""
    built = set(built_models)
    return {key: keys for key, keys in pending_keys.items() if set(family(key).partition_models) <= built}


def partition_models() -> set[str]:
    """Every dbt model that replaces changed partitions of some family."""
    return {m for fam in all_families() for m in fam.partition_models}
