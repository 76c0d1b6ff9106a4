"""Raw assets: one per file family, loading its landed files into the Parquet lake and ``raw.<family>``."""

from collections.abc import Callable
from dataclasses import dataclass, field

import dagster as dg

from pipelines.assets.landing import landing_key
from pipelines.checks import refresh_quarantine_views
from pipelines.load.header import LoadError
from pipelines.load.loader import LoadResult, SourceFile, load_file
from pipelines.refresh.pending import add_pending
from pipelines.settings import Settings, load_settings
from pipelines.sources.catalog import FAMILIES, FIXED_FILES, Family, UpstreamFile, discover_utilization
from pipelines.warehouse_db import refresh_views, writer

RAW_GROUP = "raw"


def raw_key(family_key: str) -> dg.AssetKey:
    return dg.AssetKey(["raw", family_key])


def _upstream_of(mirror_path: str) -> UpstreamFile | None:
    for f in FIXED_FILES:
        if f.mirror_path == mirror_path:
            return f
    repo_path = mirror_path.split("/", 4)[-1]  # huggingface/datasets/Qinghao/AcmeTrace/<repo path>
    found = discover_utilization([repo_path]).files
    return found[0] if found else None


def landed_sources(settings: Settings, family_key: str) -> list[SourceFile]:
    """The family's files as the landing manifest records them."""
    from pipelines.sources.manifest import all_landed

    sources = []
    for landed in all_landed(settings):
        if landed.family != family_key:
            continue
        upstream = _upstream_of(landed.mirror_path)
        if upstream is None:
            raise dg.Failure(f"{landed.mirror_path}: landed but not in the catalog")
        sources.append(SourceFile(upstream, landed.path, landed.sha256, landed.origin, landed.real_lines))
    return sorted(sources, key=lambda s: s.upstream.mirror_path)


@dataclass
class FamilyLoad:
    """What loading a family's landed files did."""

    results: list[LoadResult] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # partitions written or removed
    pending: set[str] = field(default_factory=set)  # partitions now waiting for dbt


def load_family(settings: Settings, family_key: str, log: Callable[[str], None] | None = None) -> FamilyLoad:
    """Load every landed file of the family (a file that cannot be loaded is kept as an error and the
    others go on), then refresh its ``raw``/``quarantine`` views and record the changed partitions for dbt.
    ``log`` gets a line per file."""
    say = log or (lambda _msg: None)
    out = FamilyLoad()
    for src in landed_sources(settings, family_key):
        say(f"loading {src.upstream.mirror_path}")
        try:
            result = load_file(settings, src)
        except LoadError as exc:
            out.errors.append(exc)
            continue
        st = result.state
        verb = "unchanged" if result.skipped else f"loaded in {result.seconds:.1f}s"
        say(f"{st.mirror_path}: {st.loaded:,} rows, {st.rejected:,} rejected ({verb})")
        out.results.append(result)
    out.changed = sorted({k for r in out.results if r.swap for k in (*r.swap.written, *r.swap.removed)})
    with writer(settings) as con:
        refresh_views(con, settings, [family_key])
        refresh_quarantine_views(con, settings, [family_key])
        out.pending = add_pending(settings, family_key, out.changed)
    return out


def summarize(results: list[LoadResult]) -> dict[str, object]:
    states = [r.state for r in results]
    rows = sum(s.loaded if s.values is None else s.values for s in states)  # wide files: one row per value
    metadata: dict[str, object] = {
        "dagster/row_count": rows,
        "rows": rows,
        "rejects": sum(s.rejected for s in states),
        "lines": sum(s.lines for s in states),
        "lines_loaded": sum(s.loaded for s in states),
        "files": len(states),
        "files_unchanged": sum(r.skipped for r in results),
        "partitions": len({p.key for s in states for p in s.partitions}),
        "partitions_written": sum(len(r.swap.written) for r in results if r.swap),
        "partitions_unchanged": sum(len(r.swap.unchanged) for r in results if r.swap),
        "data_origin": ", ".join(sorted({s.data_origin for s in states})),
        "sha256": states[0].sha256 if len(states) == 1 else f"{len(states)} files, see table",
    }
    if any(s.values is not None for s in states):
        metadata["empty_cells"] = sum(s.empty_cells or 0 for s in states)
    rows = "\n".join(
        f"| `{s.mirror_path}` | {s.lines:,} | {s.loaded:,} | {s.rejected:,} | {len(s.partitions)} | "
        f"{s.data_origin} | `{s.sha256[:12]}…` |"
        for s in states
    )
    metadata["files_table"] = dg.MetadataValue.md(
        "| file | lines | loaded | rejected | partitions | origin | sha256 |\n"
        "|---|---:|---:|---:|---:|---|---|\n" + rows
    )
    return metadata


def _raw_asset(fam: Family) -> dg.AssetsDefinition:
    @dg.asset(
        key=raw_key(fam.key),
        deps=[landing_key(fam.key)],
        group_name=RAW_GROUP,
        kinds={"parquet", "duckdb"},
        description=f"`raw.{fam.key}`: {fam.description}. Partitioned Parquet under lake/raw/{fam.key}/.",
        tags={"source": fam.source},
    )
    def _raw(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        settings = load_settings()
        if not landed_sources(settings, fam.key):
            raise dg.Failure(f"{fam.catalog_name}: nothing landed yet; materialize landing/{fam.key} first")
        loaded = load_family(settings, fam.key, context.log.info)
        results, errors = loaded.results, loaded.errors
        for exc in errors:
            context.log.error(str(exc))
        if errors:
            raise dg.Failure(
                f"{len(errors)} of {len(results) + len(errors)} file(s) of {fam.catalog_name} could not be "
                "loaded:\n" + "\n".join(str(e) for e in errors),
                metadata=summarize(results) if results else None,
            )
        metadata = summarize(results)
        metadata["partitions_changed"] = dg.MetadataValue.json(loaded.changed)
        metadata["partitions_pending_dbt"] = len(loaded.pending)
        return dg.MaterializeResult(metadata=metadata)

    return _raw


def raw_assets() -> list[dg.AssetsDefinition]:
    return [_raw_asset(fam) for fam in FAMILIES]
