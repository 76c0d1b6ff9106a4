"""Suite versions: a hash of everything that decides a frame's results, so a rule change re-validates.

A frame's version covers its rules (name, kind, expectation and its arguments, derived SQL, threshold, …),
the custom frame's own SELECT, the suite's expected columns and row key, and ``ENGINE`` (bumped when the
way results are computed changes). Callables (a derived column built from the available columns, a frame's
SELECT) are fingerprinted by their source text.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any

from expectations.rules import ROWS_FRAME, SCHEMA_FRAME, Suite

ENGINE = "gx-sql-duckdb-1"


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Callable):  # type: ignore[arg-type]
        try:
            return inspect.getsource(value)
        except (OSError, TypeError):
            return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', repr(value))}"
    return value


def frame_version(suite: Suite, frame: str) -> str:
    """The version of one frame's results (its rules and definition, the suite's columns, the engine)."""
    doc = {
        "engine": ENGINE,
        "family": suite.family,
        "columns": _plain(suite.columns),
        "row_index": list(suite.row_index),
        "frame": _plain(suite.frame(frame)),
        "rules": _plain(suite.rules_on(frame)),
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:16]


def unit_version(suite: Suite) -> str:
    """The version of a unit's results: its ``schema`` and ``rows`` frames."""
    return f"{frame_version(suite, SCHEMA_FRAME)}.{frame_version(suite, ROWS_FRAME)}"
