"""The fitted arrival and token-length models (group ``analysis``, keys ``fits/<table>``): one step reads
``marts.fct_request`` and writes ``analysis.arrival_fits``, ``analysis.token_length_fits`` and
``analysis.request_rate_scaling`` (:mod:`pipelines.analysis.fit_tables`). Downstream of the dbt facts, so the
eager automation condition rebuilds them after ``fct_request`` changed; the ``fits/`` prefix gives them their
own layer in ``trace-warehouse run``'s progress. Nothing is read when the definitions load."""

import dagster as dg

from pipelines.analysis.fit_tables import (
    ARRIVAL_FITS,
    MIN_ARRIVALS,
    MIN_TOKEN_COUNTS,
    REQUEST_RATE_SCALING,
    TABLES,
    TOKEN_LENGTH_FITS,
    WINDOWS,
)
from pipelines.defs.keys import FITS_GROUP, SETTINGS, fits_key, settings_of

# The fact only: the model and log-type names come from its dimensions, which dbt rebuilds with it; as deps
# they would hold the eager condition back whenever a dimension waits on a family that never loaded.
_FACTS = [dg.AssetKey(["marts", "fct_request"])]
_DESCRIPTIONS = {
    ARRIVAL_FITS: "`analysis.arrival_fits`: per model × log type × trace-clock "
    f"{' / '.join(WINDOWS)} window with at least {MIN_ARRIVALS} requests, a Gamma fit of the inter-arrival "
    "times (shape = vLLM's `--burstiness`, rate = `--request-rate`, scale = 1 / (rate × shape)), KS distance "
    "and p-value, data origin.",
    TOKEN_LENGTH_FITS: "`analysis.token_length_fits`: per model × log type, lognormal and Zipf fits "
    f"(maximum likelihood) of request and response tokens of not-failed requests (at least {MIN_TOKEN_COUNTS}), "
    "each with its KS distance, data origin.",
    REQUEST_RATE_SCALING: "`analysis.request_rate_scaling`: per BurstGPT file × model × log type × speed "
    "factor, requests per replayed second (mean, p50, p99, peak, CV, index of dispersion, idle share) when "
    "the file is replayed that many times faster.",
}


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            fits_key(table),
            deps=_FACTS,
            group_name=FITS_GROUP,
            kinds={"python", "parquet"},
            description=f"{_DESCRIPTIONS[table]} Parquet in `$WAREHOUSE_DIR/lake/fits/`, viewed as "
            f"`analysis.{table}`.",
        )
        for table in TABLES
    ],
    name="burstgpt_fits",
    required_resource_keys={SETTINGS},
)
def burstgpt_fits(context: dg.AssetExecutionContext):
    from pipelines.analysis.fit_tables import FactsMissingError, build_fits

    try:
        summary = build_fits(settings_of(context), context.log.info)
    except FactsMissingError as exc:
        raise dg.Failure(description=str(exc)) from None
    skipped = {f"{w}_windows_below_{MIN_ARRIVALS}_requests": n for w, n in summary.skipped_windows.items()}
    context.log.info(
        f"fits: {summary.rows[ARRIVAL_FITS]:,} windows fitted; left out for fewer than {MIN_ARRIVALS} "
        f"requests: {', '.join(f'{n:,} {w} windows' for w, n in summary.skipped_windows.items())}"
    )
    if any(origin != "real" for table in summary.origins.values() for origin in table):
        context.log.warning("fits: some fitted rows are synthetic (data_origin): not results about BurstGPT")
    extra = {
        ARRIVAL_FITS: skipped,
        TOKEN_LENGTH_FITS: {f"groups_below_{MIN_TOKEN_COUNTS}_requests": summary.skipped_token_groups},
        REQUEST_RATE_SCALING: {f"files_below_{MIN_ARRIVALS}_requests": summary.skipped_scaling_groups},
    }
    for table in TABLES:
        yield dg.MaterializeResult(
            asset_key=fits_key(table),
            metadata={
                "rows": summary.rows[table],
                "relation": f"analysis.{table}",
                "path": dg.MetadataValue.path(str(summary.files[table])),
                "rows_by_data_origin": dg.MetadataValue.json(dict(summary.origins[table])),
                **extra[table],
            },
        )


def fits_assets() -> list[dg.AssetsDefinition]:
    return [burstgpt_fits]
