"""The real upstream rows shipped in ``pipelines/sample/real/`` (CC-BY-4.0), read as raw lines."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REAL_DIR = Path(__file__).resolve().parent / "real"
BURSTGPT_1_HEAD = "burstgpt_1_first400.csv"
CLUSTER_SUMMARY = "acmetrace_cluster_summary.csv"
SEREN_README_ROWS = "acmetrace_seren_readme_rows.csv"
KALOS_README_ROWS = "acmetrace_kalos_readme_rows.csv"


@dataclass(frozen=True)
class RealRows:
    """A real CSV: its header line and data lines, each with its ``\\n``, byte for byte."""

    name: str
    header: bytes
    rows: tuple[bytes, ...]

    @property
    def columns(self) -> list[str]:
        return self.header.decode("utf-8").rstrip("\n").split(",")

    def field(self, row: bytes, column: str) -> str:
        return row.decode("utf-8").rstrip("\n").split(",")[self.columns.index(column)]


def real_bytes(name: str) -> bytes:
    return (REAL_DIR / name).read_bytes()


def real_rows(name: str) -> RealRows:
    lines = real_bytes(name).splitlines(keepends=True)
    return RealRows(name, lines[0], tuple(lines[1:]))
