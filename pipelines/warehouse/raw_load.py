"""A family's raw load, as the raw asset (``pipelines/defs/raw.py``) and the benchmarks run it: its landed
files into the lake (:mod:`pipelines.lake.family_load`), then, under the writer, its ``raw``/``quarantine``
views in ``trace.duckdb`` and its changed partitions recorded as pending for dbt. It imports no Dagster.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from pipelines.lake.family_load import FamilyLoad, load_family_files
from pipelines.lake.pending import add_pending
from pipelines.settings import Settings
from pipelines.warehouse.db import writer
from pipelines.warehouse.views import refresh_views


def load_family(
    settings: Settings,
    family_key: str,
    log: Callable[[str], None] | None = None,
    partitions: Collection[str] | None = None,
) -> FamilyLoad:
    """Load every landed file of the family (with ``partitions``: the utilization files in those file
    partitions; a file that cannot be loaded is kept as an error and the others go on), then refresh its
    ``raw``/``quarantine`` views and record the changed lake partitions for dbt. ``log`` gets a line per file."""
    out = load_family_files(settings, family_key, log, partitions)
    with writer(settings) as con:
        refresh_views(con, settings, [family_key])
        out.pending = add_pending(settings, family_key, out.changed)
    return out
