"""The Dagster code location: merges the asset modules. Nothing here touches the network or the warehouse;
the dbt assets read the dbt manifest that `make install` produced."""

from __future__ import annotations

import dagster as dg

from pipelines.assets.dbt import dbt_assets_defs, dbt_resource
from pipelines.assets.landing import landing_assets
from pipelines.assets.raw import raw_assets
from pipelines.assets.reports import report_assets
from pipelines.automation import daily_refresh, refresh_job, upstream_change_sensor
from pipelines.checks import asset_checks


def all_assets() -> list[dg.AssetsDefinition]:
    return [*landing_assets(), *raw_assets(), *dbt_assets_defs(), *report_assets()]


def resources() -> dict[str, object]:
    return {"dbt": dbt_resource()}


def _definitions() -> dg.Definitions:
    job = refresh_job()
    return dg.Definitions(
        assets=all_assets(),
        asset_checks=asset_checks(),
        jobs=[job],
        schedules=[daily_refresh(job)],
        sensors=[upstream_change_sensor],
        resources=resources(),
    )


defs = _definitions()
