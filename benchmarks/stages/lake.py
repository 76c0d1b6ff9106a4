"""What a stage reports about the warehouse it worked on: rows in the lake, bytes of the landed input."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pipelines.settings import Settings


def lake_rows(settings: Settings, families: Iterable[str]) -> int:
    """Rows the last loads wrote for ``families`` (non-empty cells for wide utilization files)."""
    from pipelines.lake.state import family_states

    return sum(
        st.loaded if st.values is None else st.values
        for fam in families
        for st in family_states(settings, fam)
    )


def landed_bytes(settings: Settings, families: Iterable[str]) -> int:
    """Bytes of the landed files of ``families`` (the CSV input)."""
    from pipelines.sources.manifest import all_landed

    wanted = set(families)
    return sum(f.bytes for f in all_landed(settings) if f.family in wanted)


def folder_bytes(folder: Path, pattern: str = "**/*") -> int:
    """Bytes of the files under ``folder`` matching ``pattern`` (0 when it does not exist)."""
    return sum(p.stat().st_size for p in folder.glob(pattern) if p.is_file()) if folder.is_dir() else 0


def footprint(settings: Settings) -> dict[str, int]:
    """Bytes on disk of the lake (raw, rejects, the dbt models kept there), of ``trace.duckdb`` and of its
    published reader snapshot."""
    from pipelines.warehouse.db import snapshot_path

    lake = settings.lake_dir
    snapshot = snapshot_path(settings)
    return {
        "lake_bytes": folder_bytes(lake),
        "lake_model_bytes": folder_bytes(lake / "models"),
        "duckdb_bytes": settings.duckdb_path.stat().st_size if settings.duckdb_path.exists() else 0,
        "snapshot_bytes": snapshot.stat().st_size if snapshot.exists() else 0,
    }
