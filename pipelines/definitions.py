"""The Dagster code location: merges the asset modules of ``pipelines/defs/`` with resources built from the
settings. Nothing here touches the network or the warehouse; the dbt assets read the dbt manifest that
`make install` produced. ``dagster dev`` and ``dagster`` commands load :data:`defs`; ``trace-warehouse run``
builds the same graph from the settings its flags resolved (:func:`build_definitions`)."""

from __future__ import annotations

import dagster as dg

from pipelines.defs.automation import (
    refresh_automation,
    upstream_assets,
    upstream_change_sensor,
    with_automation,
)
from pipelines.defs.checks import family_asset_checks
from pipelines.defs.data_docs import data_docs_asset
from pipelines.defs.dbt import dbt_assets_defs
from pipelines.defs.exports import export_assets
from pipelines.defs.fits import fits_assets
from pipelines.defs.landing import landing_assets
from pipelines.defs.raw import raw_assets
from pipelines.defs.reports import report_assets
from pipelines.defs.resources import resource_defs
from pipelines.settings import Settings, load_settings


def all_assets(settings: Settings) -> list[dg.AssetsDefinition | dg.AssetSpec]:
    """Every asset, with the automation conditions of pipelines/defs/automation.py."""
    return [
        *upstream_assets(),
        *with_automation(
            [
                *landing_assets(),
                *raw_assets(),
                data_docs_asset(),
                *dbt_assets_defs(settings),
                *fits_assets(),
                *report_assets(),
            ]
        ),
        *export_assets(),
    ]


def build_definitions(settings: Settings) -> dg.Definitions:
    return dg.Definitions(
        assets=all_assets(settings),
        asset_checks=family_asset_checks(),
        sensors=[upstream_change_sensor, refresh_automation()],
        resources=resource_defs(settings),
    )


@dg.definitions
def defs() -> dg.Definitions:
    """The code location of ``workspace.yaml``, from the settings in the environment."""
    return build_definitions(load_settings())
