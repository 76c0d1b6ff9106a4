"""MkDocs hooks of the project's docs site: the pages generated from the repository at build time.

- ``configuration.md``: the prose of ``docs/configuration.in.md`` with the settings table written from
  ``pipelines.settings.SETTINGS_TABLE`` (the one list of variables, their types, defaults and meanings) at
  its marker;
- ``performance.md``: the benchmark record ``benchmarks/results/latest.md`` as ``make bench`` wrote it;
- ``sample-queries.md``: the researcher questions over the fact of samples, with the SQL ``make bench`` times
  (``benchmarks/cookbook_queries.py``), each beside the same question asked of the lake's Parquet files.

Nothing runs at import time: MkDocs calls the ``on_*`` functions during a build.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import Files

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
CONFIGURATION_SOURCE = DOCS / "configuration.in.md"
SETTINGS_MODULE = ROOT / "pipelines" / "settings.py"
BENCH_RECORD = ROOT / "benchmarks" / "results" / "latest.md"
COOKBOOK_QUERIES = ROOT / "benchmarks" / "cookbook_queries.py"
TABLE_MARKER = "<!-- settings-table -->"

# Every file a generated page is made of (the docs server rebuilds the site when one is newer than it).
GENERATED_FROM = (CONFIGURATION_SOURCE, SETTINGS_MODULE, BENCH_RECORD, COOKBOOK_QUERIES)


def _load_by_path(path: Path) -> ModuleType:
    """A module of the repository loaded by path, so a build needs neither the package installed nor its
    imports (the modules loaded here import only the standard library)."""
    spec = importlib.util.spec_from_file_location(f"_trace_warehouse_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve the module of their annotations
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(spec.name, None)
    return module


def _settings_module() -> ModuleType:
    return _load_by_path(SETTINGS_MODULE)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ") or "—"


def settings_table() -> str:
    """The settings as a Markdown table: variable, CLI flag, type, default, meaning."""
    rows = [
        "| variable | CLI flag | type | default | meaning |",
        "|---|---|---|---|---|",
        *(
            f"| `{var.name}` | {_cell(var.flag)} | {_cell(var.type.kind)} | {_cell(var.docs_default)} "
            f"| {_cell(var.meaning)} |"
            for var in _settings_module().SETTINGS_TABLE
        ),
    ]
    return "\n".join(rows)


def configuration_page() -> str:
    text = CONFIGURATION_SOURCE.read_text(encoding="utf-8")
    if TABLE_MARKER not in text:
        raise ValueError(f"{CONFIGURATION_SOURCE} has no {TABLE_MARKER} line for the settings table")
    return text.replace(TABLE_MARKER, settings_table())


_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\((?!https?://|#)([^)\s]+)\)")


def performance_page() -> str:
    head = (
        "# Performance\n\n"
        "This page is generated from `benchmarks/results/latest.md`, which `make bench` writes (every stage "
        "at scale 1.0, three runs, medians; `make bench-smoke` runs the same at scale 0.01 into "
        "`benchmarks/results/smoke/`). How the benchmarks measure, and why, is on the "
        "[Architecture](architecture.md#measuring) page. Tests never assert on time.\n\n"
    )
    if not BENCH_RECORD.exists():
        return head + "No benchmark record: `benchmarks/results/latest.md` is missing. Run `make bench`.\n"
    record = BENCH_RECORD.read_text(encoding="utf-8")
    # The record is a page of its own: its headings go one level down, its links to other result files
    # (which are not pages of this site) become their text and path.
    record = re.sub(r"^(#{1,5}) ", r"#\1 ", record, flags=re.MULTILINE)
    record = _LINK.sub(lambda m: f"{m.group(1)} (`benchmarks/results/{m.group(2)}`)", record)
    return head + record


def sample_queries_page() -> str:
    """The cookbook's questions over ``fct_node_metric``, each as the warehouse answers it and by hand on the
    lake's Parquet files (``{lake}`` stands for ``$WAREHOUSE_DIR/lake/raw``)."""
    module = _load_by_path(COOKBOOK_QUERIES)
    parts = [
        "# Questions over the samples\n\n"
        "Five questions researchers ask of the utilization samples, as SQL over the star schema "
        "(`marts.fct_node_metric` and its dimensions), each beside the same question written by hand against "
        "the raw lake's Parquet files (`{lake}` stands for `$WAREHOUSE_DIR/lake/raw`). `make bench` times both "
        "on the whole-set warehouse (see [Performance](performance.md)). The lake side neither drops repeated "
        "samples nor resolves node keys, so its answers can differ slightly. A filter on `metric`, the cluster "
        "or the sample time reaches the Parquet scan: files and row groups of other metrics and days are not "
        "read.\n\n"
        "A count, sum, mean or maximum per cluster, metric and hour (or day) needs no sample: "
        "`analysis.utilization_hourly` holds each hour's samples, those at zero, their sum, mean and maximum, "
        "merged from the one scan of the samples the build makes (the test suite checks it against "
        "`fct_node_metric`, sample by sample). Idle GPU-hours per cluster and day from it reads a few thousand "
        "rows instead of every sample:\n\n"
        f"```sql\n{module.IDLE_GPU_HOURS_FROM_HOURS.strip()}\n```\n"
    ]
    for query in module.QUERIES:
        parts.append(
            f"\n## {query.question[0].upper()}{query.question[1:]}\n\n"
            f"```sql\n{query.warehouse.strip()}\n```\n\nBy hand, on the lake:\n\n"
            f"```sql\n{query.lake.strip()}\n```\n"
        )
    return "".join(parts)


GENERATED = {
    "configuration.md": configuration_page,
    "performance.md": performance_page,
    "sample-queries.md": sample_queries_page,
}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    from mkdocs.structure.files import File

    for name, page in GENERATED.items():
        existing = files.get_file_from_path(name)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, name, content=page()))
    return files


def on_serve(server: LiveReloadServer, config: MkDocsConfig, builder: Callable[..., Any]) -> LiveReloadServer:
    for path in GENERATED_FROM:
        if path.exists():
            server.watch(str(path))
    return server
