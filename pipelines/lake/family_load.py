"""Load a family's files into the lake: every landed file of it, as the landing manifest records them.

:func:`load_family_files` writes the lake only; :func:`pipelines.warehouse.raw_load.load_family` (what the
raw asset, ``pipelines/defs/raw.py``, and the benchmarks run) calls it, then refreshes the family's views
and records its changed partitions as pending.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from pipelines.families.registry import upstream_file
from pipelines.lake.header import DiskFullError, LoadError
from pipelines.lake.loader import LoadResult, SourceFile, load_file
from pipelines.lake.state import FileLoadState
from pipelines.settings import Settings
from pipelines.sources.manifest import all_landed, read_landed, write_landed


class NotInCatalogError(LookupError):
    """A landed file the catalog does not know (its family was renamed or removed)."""


def landed_sources(
    settings: Settings, family_key: str, partitions: Collection[str] | None = None
) -> list[SourceFile]:
    """The family's files as the landing manifest records them (with ``partitions``: only the utilization
    files in those file partitions, ``kalos/GPU_UTIL``)."""
    sources = []
    for landed in all_landed(settings):
        if landed.family != family_key:
            continue
        upstream = upstream_file(landed.mirror_path)
        if upstream is None:
            raise NotInCatalogError(f"{landed.mirror_path}: landed but not in the catalog")
        if partitions is not None and upstream.partition not in partitions:
            continue
        sources.append(SourceFile(upstream, landed.path, landed.sha256, landed.origin, landed.real_lines))
    return sorted(sources, key=lambda s: s.upstream.mirror_path)


@dataclass
class FamilyLoad:
    """What loading a family's landed files did."""

    results: list[LoadResult] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # partitions written or removed
    pending: set[str] = field(default_factory=set)  # partitions now waiting for dbt (set by load_family)


# Files of a family loaded at once. A clean wide file's load keeps about 1.7 of two cores busy (pyarrow's
# parse, the unpivot and the Parquet writer wait on each other at times); a second file's load fills those
# gaps: four real-width GPU files took 12 % less time, on the same CPU. Exact parses take turns (loader.py).
LOAD_WORKERS = 2


def load_family_files(
    settings: Settings,
    family_key: str,
    log: Callable[[str], None] | None = None,
    partitions: Collection[str] | None = None,
) -> FamilyLoad:
    """Load every landed file of the family into the lake (with ``partitions``: the utilization files in
    those file partitions; a file that cannot be loaded is kept as an error and the others go on), up to
    ``LOAD_WORKERS`` files at once; the result names the lake partitions written or removed, and ``log`` gets
    a line per file, in the order of the files."""
    say = log or (lambda _msg: None)
    out = FamilyLoad()
    with ThreadPoolExecutor(LOAD_WORKERS, thread_name_prefix="load") as pool:
        loads = [
            (src, moved_since_landing(settings, src) or pool.submit(load_file, settings, src))
            for src in landed_sources(settings, family_key, partitions)
        ]
        try:
            for src, load in loads:
                _take(settings, src, load, out, say)
        finally:  # a family's load that stops (disk full) starts no other file
            for _, load in loads:
                if isinstance(load, Future):
                    load.cancel()
    out.changed = sorted({k for r in out.results if r.swap for k in (*r.swap.written, *r.swap.removed)})
    return out


def _take(
    settings: Settings,
    src: SourceFile,
    load: Future[LoadResult] | str,
    out: FamilyLoad,
    say: Callable[[str], None],
) -> None:
    """Wait for one file's load (or the reason it was not started) and add its result or error to ``out``."""
    say(f"loading {src.upstream.mirror_path}")
    if isinstance(load, str):
        out.errors.append(LoadError(src.path, load))
        return
    try:
        result = load.result()
    except DiskFullError:  # its other files would fail alike: the family's load stops here
        raise
    except LoadError as exc:
        out.errors.append(exc)
        return
    except FileNotFoundError:  # its landed copy was dropped, and the lake no longer has what it loaded
        if src.path.exists():  # the landed copy is there: another file went missing, said as it is
            raise
        reason = "the landed copy was dropped after its load (TRACE_DROP_LANDED) and its lake files are gone"
        out.errors.append(
            LoadError(
                src.path, f"{reason}: delete manifest/{src.upstream.mirror_path}.json and land it again"
            )
        )
        return
    if result.repaired:
        say(
            f"{src.upstream.mirror_path}: lake file(s) missing or damaged, rebuilt from the landed file: "
            + ", ".join(result.repaired)
        )
    if settings.drop_landed:
        drop_landed_copy(settings, result.state)
    st = result.state
    verb = {
        "unchanged": "unchanged",
        "append": f"{result.lines_parsed:,} appended lines parsed in {result.seconds:.1f}s",
    }.get(result.mode, f"loaded in {result.seconds:.1f}s")
    verb += f", {result.parser} path" if result.parser else ""
    say(f"{st.mirror_path}: {st.loaded:,} rows, {st.rejected:,} rejected ({verb})")
    out.results.append(result)


def moved_since_landing(settings: Settings, src: SourceFile) -> str | None:
    """Why a file landed as a link to a mirror file cannot be loaded: the mirror file's size or mtime is no
    longer what was verified at landing (None when it is, or when the landed file is a copy)."""
    if not src.path.is_symlink():
        return None
    landed = read_landed(settings, src.upstream.mirror_path)
    try:
        st = src.path.stat()
    except FileNotFoundError:
        return f"the mirror file it links to is gone ({os.readlink(src.path)}): restore it, or land it again"
    if landed is None or (st.st_size, st.st_mtime_ns) != (landed.bytes, landed.source_mtime_ns):
        return (
            "the mirror file changed after it was landed and verified; run again to land (verify) and load "
            "what it holds now"
        )
    return None


def drop_landed_copy(settings: Settings, state: FileLoadState) -> bool:
    """Delete the landed copy of the file ``state`` records once its Parquet is published (the landing
    manifest keeps its size, sha256 and ETag and says ``dropped``); True when a copy was deleted."""
    landed = read_landed(settings, state.mirror_path)
    if landed is None or landed.sha256 != state.sha256 or not landed.path.exists():
        return False
    write_landed(settings, replace(landed, dropped=True))
    landed.path.unlink()
    return True


def files_table(results: list[LoadResult]) -> str:
    """A markdown table, a row per file: lines, loaded, rejected, partitions, origin, sha256, the parser
    (``fast``: a clean wide file through ``wide_fast``; ``exact``; ``–``: unchanged, not parsed)."""
    rows = "\n".join(
        f"| `{s.mirror_path}` | {s.lines:,} | {s.loaded:,} | {s.rejected:,} | {len(s.partitions)} | "
        f"{s.data_origin} | `{s.sha256[:12]}…` | {r.parser or '–'} |"
        for r, s in ((r, r.state) for r in results)
    )
    return (
        "| file | lines | loaded | rejected | partitions | origin | sha256 | parser |\n"
        "|---|---:|---:|---:|---:|---|---|---|\n" + rows
    )


def summarize(results: list[LoadResult]) -> dict[str, object]:
    """The counts of a family load: rows (values for wide files), rejects, lines, files, partitions."""
    states = [r.state for r in results]
    rows = sum(s.loaded if s.values is None else s.values for s in states)  # wide files: one row per value
    summary: dict[str, object] = {
        "dagster/row_count": rows,
        "rows": rows,
        "rejects": sum(s.rejected for s in states),
        "lines": sum(s.lines for s in states),
        "lines_loaded": sum(s.loaded for s in states),
        "files": len(states),
        "files_unchanged": sum(r.skipped for r in results),
        "files_appended": sum(r.mode == "append" for r in results),
        "lines_parsed": sum(r.lines_parsed for r in results),
        "partitions": len({p.key for s in states for p in s.partitions}),
        "partitions_written": sum(len(r.swap.written) for r in results if r.swap),
        "partitions_unchanged": sum(len(r.swap.unchanged) for r in results if r.swap),
        "data_origin": ", ".join(sorted({s.data_origin for s in states})),
        "sha256": states[0].sha256 if len(states) == 1 else f"{len(states)} files, see table",
    }
    if any(s.values is not None for s in states):
        summary["empty_cells"] = sum(s.empty_cells or 0 for s in states)
    return summary
