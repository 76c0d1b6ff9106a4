"""Dagster resources, built from the settings once per code location (or per ``trace-warehouse run``).

- ``warehouse``: the :class:`~pipelines.settings.Settings` every asset, check and sensor works with;
- ``trace_source``: where upstream files come from (:mod:`pipelines.sources.trace_source`);
- ``dbt``: dagster-dbt's CLI resource for the settings' engine.

Assets read them from their context (:func:`settings_of`, :func:`source_of`); nothing in ``defs/`` calls
``load_settings()``: the CLI's flags reach the assets this way, without touching the environment.
"""

from typing import Any

import dagster as dg

from pipelines.settings import Settings
from pipelines.sources.trace_source import TraceSource, trace_source

WAREHOUSE = "warehouse"
TRACE_SOURCE = "trace_source"
DBT = "dbt"


def resource_defs(settings: Settings) -> dict[str, Any]:
    from pipelines.defs.dbt import dbt_resource

    return {
        WAREHOUSE: dg.ResourceDefinition.hardcoded_resource(
            settings, f"the warehouse at {settings.warehouse_dir}"
        ),
        TRACE_SOURCE: dg.ResourceDefinition.hardcoded_resource(
            trace_source(settings), f"upstream files from the {settings.source} source"
        ),
        DBT: dbt_resource(settings),
    }


def settings_of(context: Any) -> Settings:
    """The settings of a run: from an asset, check or sensor context that requires ``warehouse``."""
    return context.resources.warehouse


def source_of(context: Any) -> TraceSource:
    return context.resources.trace_source
