"""Where a run's logs go: ``$WAREHOUSE_DIR/logs/run-<UTC time>.log``, the terminal keeps the progress.

:func:`capture_output` points the process's file descriptors 1 and 2 at the log file for the duration —
so Dagster's records, dbt's per-node lines (dagster-dbt writes them to ``sys.stdout``), warnings and the
output of any subprocess all land there — and hands back a stream on the original stdout for the display.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from pipelines.settings import Settings


def new_log_path(settings: Settings, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    path = settings.logs_dir / f"run-{stamp}.log"
    n = 1
    while path.exists():  # two runs in the same second
        n += 1
        path = settings.logs_dir / f"run-{stamp}-{n}.log"
    return path


def latest_log(settings: Settings) -> Path | None:
    logs = sorted(settings.logs_dir.glob("run-*.log"), key=lambda p: p.stat().st_mtime)
    return logs[-1] if logs else None


def terminal_width(stream: TextIO) -> int | None:
    """The width of the terminal behind ``stream``, or None when it is not one."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError):
        return None


@contextmanager
def capture_output(log_path: Path) -> Iterator[TextIO]:
    """Send fd 1 and 2 to ``log_path`` (appending); yield a text stream on the original stdout."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    terminal = os.fdopen(os.dup(saved[1]), "w", encoding="utf-8", errors="replace", buffering=1)
    try:
        with log_path.open("ab") as log:
            for fd in saved:
                os.dup2(log.fileno(), fd)
            try:
                yield terminal
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                for fd, copy in saved.items():
                    os.dup2(copy, fd)
    finally:
        terminal.close()
        for copy in saved.values():
            os.close(copy)
