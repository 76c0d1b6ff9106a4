"""Asset keys, group names and resource keys: one word follows a family through every layer."""

from typing import Any

import dagster as dg

from pipelines.settings import Settings

UPSTREAM_GROUP = "upstream"
LANDING_GROUP = "landing"
RAW_GROUP = "raw"
REPORT_GROUP = "reports"
EXPORT_GROUP = "exports"
FITS_GROUP = "analysis"  # the fitted models sit beside the dbt analysis marts (keys fits/<table>)
DOCS_KEY = dg.AssetKey(["docs", "dbt"])
GX_DOCS_KEY = dg.AssetKey(["docs", "gx"])


def upstream_key(family_key: str) -> dg.AssetKey:
    return dg.AssetKey(["upstream", family_key])


def landing_key(family_key: str) -> dg.AssetKey:
    return dg.AssetKey(["landing", family_key])


def raw_key(family_key: str) -> dg.AssetKey:
    return dg.AssetKey(["raw", family_key])


def report_key(name: str) -> dg.AssetKey:
    return dg.AssetKey(["report", name])


def export_key(name: str) -> dg.AssetKey:
    return dg.AssetKey(["export", name])


def fits_key(table: str) -> dg.AssetKey:
    """The fitted-model asset writing ``analysis.<table>`` (pipelines/defs/fits.py)."""
    return dg.AssetKey(["fits", table])


# Resource keys (pipelines/defs/resources.py builds them from the settings).
SETTINGS = "settings"  # the run's Settings (pipelines/settings.py)
TRACE_SOURCE = "trace_source"
DBT = "dbt"


def settings_of(context: Any) -> Settings:
    """The settings of a run: from an asset, check or sensor context that requires ``settings``."""
    return context.resources.settings
