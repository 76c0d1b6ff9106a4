"""Stored validation results, so that only what changed is validated again.

``lake/_validation/<family>.json`` holds one record per unit (a lake file: a source file's partition or an
appended part of it; the ``schema`` and ``rows`` frames), per partition for partition-scope frames, and one per family-scope frame. Each record
carries the key it was computed from — a hash of the suite version of its frames and the content hashes
of the units it read (``units.inputs_key``) — and per rule the counts, a few sample rows and breakdown
counts. A record whose key still matches is reused; anything else is validated again and replaced.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pipelines.atomic_write import write_json
from pipelines.settings import Settings

FORMAT = 1  # bump when the meaning of stored counts changes: every stored result is then recomputed


@dataclass
class RuleCounts:
    count: int = 0  # violating rows (duplicates: the extra copies)
    evaluated: int = 0  # rows of the frame the rule ran on
    samples: list[dict[str, str]] = field(default_factory=list)
    breakdown: dict[str, int] = field(default_factory=dict)


@dataclass
class Record:
    key: str
    rules: dict[str, RuleCounts] = field(default_factory=dict)
    quarantined: int = 0  # distinct raw rows quarantined (units only)
    note: str = ""  # why the frame had nothing to evaluate

    @classmethod
    def from_json(cls, doc: dict) -> Record:
        rules = {name: RuleCounts(**counts) for name, counts in doc.pop("rules", {}).items()}
        return cls(**doc, rules=rules)


@dataclass
class FamilyResults:
    family: str
    units: dict[str, Record] = field(default_factory=dict)  # unit id → record
    frames: dict[str, Record] = field(default_factory=dict)  # "<frame>" or "<frame>/<partition>" → record
    docs_pages: dict[str, str] = field(default_factory=dict)  # Data Docs page (family.frame) → file:// URL


def path(settings: Settings, family: str) -> Path:
    return settings.lake_dir / "_validation" / f"{family}.json"


def load(settings: Settings, family: str) -> FamilyResults:
    """The family's stored results (empty when none, or stored by another format version)."""
    file = path(settings, family)
    if not file.exists():
        return FamilyResults(family)
    doc = json.loads(file.read_text(encoding="utf-8"))
    if doc.get("format") != FORMAT:
        return FamilyResults(family)
    return FamilyResults(
        family,
        units={k: Record.from_json(v) for k, v in doc["units"].items()},
        frames={k: Record.from_json(v) for k, v in doc["frames"].items()},
        docs_pages=dict(doc.get("docs_pages", {})),
    )


def save(settings: Settings, results: FamilyResults) -> None:
    doc = {
        "format": FORMAT,
        "family": results.family,
        "units": {k: asdict(v) for k, v in sorted(results.units.items())},
        "frames": {k: asdict(v) for k, v in sorted(results.frames.items())},
        "docs_pages": results.docs_pages,
    }
    write_json(path(settings, results.family), doc)
