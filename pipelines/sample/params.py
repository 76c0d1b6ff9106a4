"""The arguments of one sample run, and the row counts they imply."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pipelines.sample.calibration import MIN_SYNTHETIC_ROWS

Progress = Callable[[str], None]


class SampleError(ValueError):
    """The generator was asked for something it cannot produce; the message says what."""


@dataclass(frozen=True)
class SampleParams:
    scale: float
    util_nodes: int
    util_days: int
    seed: int
    gpu_util_days: int | None = None  # days of GPU_UTIL (the most-studied metric); None: util_days

    @property
    def gpu_util_window_days(self) -> int:
        return self.util_days if self.gpu_util_days is None else self.gpu_util_days

    def __post_init__(self) -> None:
        if not 0 < self.scale <= 1.0:
            raise SampleError(f"scale must be in (0, 1], got {self.scale}")
        if self.util_nodes < 2:
            raise SampleError(
                f"util_nodes must be at least 2 (IPMI needs type A and B servers), got {self.util_nodes}"
            )
        if self.util_days < 1:
            raise SampleError(f"util_days must be at least 1, got {self.util_days}")
        if self.gpu_util_days is not None and self.gpu_util_days < 1:
            raise SampleError(f"gpu_util_days must be at least 1, got {self.gpu_util_days}")
        if self.seed < 0:
            raise SampleError(f"seed must be a non-negative integer, got {self.seed}")

    def rows(self, published_rows: int, real_rows: int = 0) -> int:
        """Data rows of a file: ``round(scale × published)``, never fewer than its real rows plus
        ``MIN_SYNTHETIC_ROWS`` synthetic ones."""
        return max(round(self.scale * published_rows), real_rows + MIN_SYNTHETIC_ROWS)

    def as_json(self) -> dict[str, float | int]:
        return {
            "seed": self.seed,
            "scale": self.scale,
            "util_nodes": self.util_nodes,
            "util_days": self.util_days,
            "gpu_util_days": self.gpu_util_window_days,
        }
