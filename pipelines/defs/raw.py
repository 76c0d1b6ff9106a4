"""Raw assets: one per file family, loading its landed files into the Parquet lake and ``raw.<family>``."""

import dagster as dg

from pipelines.defs.file_checks import FILES_LOADED, failures_json, file_check_results, file_check_spec
from pipelines.defs.file_partitions import (
    backfill_policy,
    partition_metadata,
    partitions_def,
    selected_partitions,
)
from pipelines.defs.keys import RAW_GROUP, SETTINGS, landing_key, raw_key, settings_of
from pipelines.families.registry import Family, all_families, upstream_file
from pipelines.lake.family_load import files_table, landed_sources, summarize
from pipelines.warehouse.raw_load import load_family


def metadata(results) -> dict[str, object]:  # results: list[LoadResult]
    return {**summarize(results), "files_table": dg.MetadataValue.md(files_table(results))}


def _raw_asset(fam: Family) -> dg.AssetsDefinition:
    @dg.asset(
        key=raw_key(fam.key),
        deps=[landing_key(fam.key)],
        group_name=RAW_GROUP,
        kinds={"parquet", "duckdb"},
        description=f"`raw.{fam.key}`: {fam.description} Partitioned Parquet under lake/raw/{fam.key}/.",
        tags={"source": fam.source},
        required_resource_keys={SETTINGS},
        check_specs=[file_check_spec(FILES_LOADED, raw_key(fam.key))],
        partitions_def=partitions_def(fam),
        backfill_policy=backfill_policy(fam),
    )
    def _raw(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        settings = settings_of(context)
        chosen = selected_partitions(context)
        if chosen is None and not landed_sources(settings, fam.key):
            raise dg.Failure(f"{fam.catalog_name}: nothing landed yet; materialize landing/{fam.key} first")
        loaded = load_family(settings, fam.key, context.log.info, chosen)
        results, errors = loaded.results, loaded.errors
        for exc in errors:
            context.log.error(str(exc))
        if errors and not results:
            raise dg.Failure(
                f"none of the {len(errors)} file(s) of {fam.catalog_name} could be loaded:\n"
                + "\n".join(str(e) for e in errors)
            )
        failures = [(e.path, e.reason) for e in errors]
        partition_metadata(
            context, chosen, results, lambda r: _partition_of(r.state.mirror_path), metadata,
            empty=f"nothing landed in this partition: upstream has no file there, or landing/{fam.key} was not "
            "materialized for it",
        )  # fmt: skip
        return dg.MaterializeResult(
            metadata={
                **metadata(results),
                "partitions_changed": dg.MetadataValue.json(loaded.changed),
                "partitions_pending_dbt": len(loaded.pending),
                "files_failed": failures_json(failures),
            },
            check_results=file_check_results(context, FILES_LOADED, len(results) + len(errors), failures),
        )

    return _raw


def _partition_of(mirror_path: str) -> str | None:
    upstream = upstream_file(mirror_path)
    return upstream.partition if upstream else None


def raw_assets() -> list[dg.AssetsDefinition]:
    return [_raw_asset(fam) for fam in all_families()]
