"""What a stage function gets and returns (see ``benchmarks.stage``, which runs it in its own process)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipelines.settings import Settings


class StageUnavailable(Exception):
    """The stage cannot run in this tree (its module or tool is missing); the message says why."""


@dataclass
class StageOutput:
    """The rows and bytes the stage processed (None: not meaningful for it) and stage-specific details."""

    rows: int | None = None
    bytes: int | None = None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class StageContext:
    """A stage's parameters and the two time stamps it sets (``time.monotonic()`` values)."""

    params: dict[str, Any]
    started_at: float
    ready_at: float | None = None
    done_at: float | None = None

    @cached_property
    def settings(self) -> Settings:
        """The stage process's settings (its environment, set by the harness), read once."""
        from pipelines.settings import load_settings

        return load_settings()

    def ready(self) -> None:
        """Imports done, engines loaded: everything after this is work."""
        self.ready_at = time.monotonic()

    def done(self) -> None:
        """The work is finished; counting and reporting after this is not timed."""
        self.done_at = time.monotonic()


StageFunction = Callable[[StageContext], StageOutput]
