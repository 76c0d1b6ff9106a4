"""How many of the rows behind a figure are real and how many synthetic (``_data_origin`` of the facts)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RowOrigin:
    """Rows of ``source`` (e.g. "GPU jobs (fct_job)") by ``_data_origin``."""

    source: str
    real: int
    synthetic: int

    @property
    def total(self) -> int:
        return self.real + self.synthetic

    @property
    def has_synthetic(self) -> bool:
        return self.synthetic > 0

    def caption(self) -> str:
        text = f"Rows: {self.real:,} real · {self.synthetic:,} synthetic {self.source}"
        return text + (" — synthetic = generated, not measured" if self.has_synthetic else "")
