"""Validation of the raw layer with Great Expectations, as Dagster asset checks (DESIGN §5).

- ``asset_checks()`` — the checks definitions, one per raw asset (``pipelines/definitions.py``);
- ``refresh_quarantine_views(con, settings, families)`` — ``quarantine.<family>`` views, called where the
  raw views are refreshed (under ``warehouse_db.writer()``);
- ``validate_family(settings, family)`` (``pipelines.checks.validation``) — the same validation without
  Dagster.

Importing this package reads no data and imports neither Great Expectations nor the raw assets (so
``pipelines/assets/raw.py`` and ``warehouse_db`` may import ``refresh_quarantine_views`` without a cycle).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipelines.checks.quarantine import refresh_quarantine_views

if TYPE_CHECKING:
    import dagster as dg


def asset_checks() -> list[dg.AssetChecksDefinition]:
    """One checks definition per raw asset, one check per rule (add to ``dg.Definitions(asset_checks=...)``)."""
    from pipelines.checks.dagster_checks import family_asset_checks

    return family_asset_checks()


__all__ = ["asset_checks", "refresh_quarantine_views"]
