"""Dagster resources, built from the settings once per code location (or per ``trace-warehouse run``).

- ``settings``: the :class:`~pipelines.settings.Settings` every asset, check and sensor works with;
- ``trace_source``: where upstream files come from (:mod:`pipelines.sources.trace_source`; the mode's source
  from :func:`pipelines.sample.source.trace_source`);
- ``dbt``: dagster-dbt's CLI resource for the settings' engine, which starts dbt with the settings' variables.

Assets read the settings from their context (``keys.settings_of``); nothing in ``defs/`` calls
``load_settings()``: the CLI's flags reach the assets this way, without touching the environment.
"""

from typing import Any

import dagster as dg

from pipelines.defs.dbt import dbt_resource
from pipelines.defs.keys import DBT, SETTINGS, TRACE_SOURCE
from pipelines.sample.source import trace_source
from pipelines.settings import Settings


def resource_defs(settings: Settings) -> dict[str, Any]:
    return {
        SETTINGS: dg.ResourceDefinition.hardcoded_resource(
            settings, f"the warehouse at {settings.warehouse_dir}"
        ),
        TRACE_SOURCE: dg.ResourceDefinition.hardcoded_resource(
            trace_source(settings), f"upstream files from the {settings.source} source"
        ),
        DBT: dbt_resource(settings),
    }
