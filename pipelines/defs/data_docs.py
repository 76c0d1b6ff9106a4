"""``docs/gx``: Great Expectations' Data Docs, rendered once per run.

Each raw asset's checks store their results and queue their pages (``pipelines.validate.data_docs.record``);
this asset renders what is queued, and the site index, once. It depends on every raw asset, and each raw
asset's checks include the blocking structural check, so in a run it starts after all of them. Pages a run
without this asset queued (a raw asset materialized alone from the UI) are rendered by the docs server when
they are first requested, or by the next run. (No ``from __future__ import annotations``: Dagster inspects
the ``context`` annotation.)
"""

import dagster as dg

from pipelines.defs.keys import GX_DOCS_KEY, REPORT_GROUP, SETTINGS, raw_key, settings_of
from pipelines.docs_server import link_for_file_url
from pipelines.families.registry import all_families


def data_docs_asset() -> dg.AssetsDefinition:
    @dg.asset(
        key=GX_DOCS_KEY,
        deps=[raw_key(f.key) for f in all_families()],
        group_name=REPORT_GROUP,
        kinds={"great_expectations"},
        required_resource_keys={SETTINGS},
        description=(
            "Great Expectations' Data Docs of the raw assets' checks, rendered once per run for what was "
            "validated again: `$WAREHOUSE_DIR/docs/gx/index.html` (on the docs server while "
            "`trace-warehouse docs` runs; `make dev` starts it)."
        ),
    )
    def _gx_docs(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        from pipelines.validate.data_docs import index_url, render

        settings = settings_of(context)
        rendered = render(settings)
        context.log.info(f"Data Docs: {rendered} page(s) rendered, index {index_url(settings)}")
        return dg.MaterializeResult(
            metadata={
                "pages_rendered": rendered,
                "data_docs_index": dg.MetadataValue.url(link_for_file_url(settings, index_url(settings))),
            }
        )

    return _gx_docs
