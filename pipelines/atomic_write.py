"""Atomic file replacement: a reader sees the old file or the new one, never half of one.

Everything the warehouse writes outside DuckDB (lake state, pending keys, quarantine, manifests, figures,
landed files) goes through :func:`replacing`: the content is written to a hidden temp file beside the
target, then renamed over it (``os.replace`` is atomic within one filesystem).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def replacing(target: Path) -> Iterator[Path]:
    """Yield a temp path beside ``target``; when the block succeeds it replaces ``target``. On an error
    the temp file is removed and ``target`` is left as it was."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def write_bytes(target: Path, data: bytes) -> None:
    with replacing(target) as tmp:
        tmp.write_bytes(data)


def write_json(target: Path, doc: Any, *, indent: int | None = None) -> None:
    """``doc`` as JSON (indented documents end with a newline)."""
    text = json.dumps(doc, indent=indent) + ("\n" if indent is not None else "")
    write_bytes(target, text.encode("utf-8"))
