"""The Dagster code location: merges the asset modules. Nothing here touches the disk or the network."""

from __future__ import annotations

import dagster as dg

from pipelines.assets.landing import landing_assets
from pipelines.assets.raw import raw_assets


def all_assets() -> list[dg.AssetsDefinition]:
    return [*landing_assets(), *raw_assets()]


defs = dg.Definitions(assets=all_assets())
