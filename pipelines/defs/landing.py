"""Landing assets: one per file family, each fetching the family's upstream files into ``landing/``."""

import dagster as dg

from pipelines.defs.file_checks import FILES_LANDED, failures_json, file_check_results, file_check_spec
from pipelines.defs.file_partitions import (
    backfill_policy,
    partition_metadata,
    partitions_def,
    selected_partitions,
)
from pipelines.defs.keys import LANDING_GROUP, SETTINGS, TRACE_SOURCE, landing_key, settings_of, upstream_key
from pipelines.families.registry import Family, all_families, files_for
from pipelines.families.upstream import discover_utilization


def _landing_asset(fam: Family) -> dg.AssetsDefinition:
    @dg.asset(
        key=landing_key(fam.key),
        deps=[upstream_key(fam.key)],
        group_name=LANDING_GROUP,
        kinds={"csv"},
        description=f"Upstream CSV files of `{fam.catalog_name}` landed in landing/ (a mirror file linked, a download written): {fam.description}",
        tags={"source": fam.source},
        required_resource_keys={SETTINGS, TRACE_SOURCE},
        check_specs=[file_check_spec(FILES_LANDED, landing_key(fam.key))],
        partitions_def=partitions_def(fam),
        backfill_policy=backfill_policy(fam),
    )
    def _landing(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        from pipelines.sources.landing import land_files, list_utilization

        settings = settings_of(context)
        listing: list[str] = []
        skipped: tuple[tuple[str, str], ...] = ()
        if fam.discovered:
            listing = list_utilization(settings, source=context.resources.trace_source)
            skipped = discover_utilization(listing).skipped
        files = files_for([fam.key], listing)
        chosen = selected_partitions(context)
        if chosen is not None:
            files = [f for f in files if f.partition in chosen]
        if not files and chosen is None:
            raise dg.Failure(f"{fam.catalog_name}: no upstream file found (source {settings.source})")
        result = land_files(settings, files, progress=context.log.info, source=context.resources.trace_source)
        for path, why in skipped:
            context.log.warning(f"not fetched: {path} ({why})")
        for err in result.errors:
            context.log.error(str(err))
        if result.errors and not result.landed:
            raise dg.Failure(
                f"{len(result.errors)} of {len(files)} file(s) of {fam.catalog_name} could not be landed:\n"
                + "\n".join(str(e) for e in result.errors),
            )
        failures = [(e.mirror_path, f"{e.reason} (from {e.location})") for e in result.errors]
        landed = sorted(result.landed, key=lambda f: f.mirror_path)
        partition_of = {f.mirror_path: f.partition for f in files}
        partition_metadata(
            context, chosen, landed, lambda f: partition_of.get(f.mirror_path), _landed_metadata,
            empty=f"no upstream file in this partition (source {settings.source})",
        )  # fmt: skip
        return dg.MaterializeResult(
            metadata={
                **_landed_metadata(landed),
                "source": settings.source,
                "not_fetched": dg.MetadataValue.json([{"path": p, "why": w} for p, w in skipped]),
                "files_failed": failures_json(failures),
            },
            check_results=file_check_results(context, FILES_LANDED, len(files), failures),
        )

    return _landing


def _landed_metadata(landed: list) -> dict[str, object]:  # landed: list[LandedFile]
    table = "\n".join(
        f"| `{f.mirror_path}` | {f.bytes:,} | `{f.sha256[:12]}…` | {f.origin} | {'yes' if f.changed else 'no'} |"
        for f in landed
    )
    return {
        "files": len(landed),
        "bytes": sum(f.bytes for f in landed),
        "changed_files": sum(f.changed for f in landed),
        "source_url": landed[0].url if len(landed) == 1 else f"{len(landed)} files, see table",
        "sha256": landed[0].sha256 if len(landed) == 1 else f"{len(landed)} files, see table",
        "data_origin": ", ".join(sorted({f.origin for f in landed})),
        "files_table": dg.MetadataValue.md(
            "| file | bytes | sha256 | origin | changed |\n|---|---:|---|---|---|\n" + table
        ),
    }


def landing_assets() -> list[dg.AssetsDefinition]:
    return [_landing_asset(fam) for fam in all_families()]
