"""The file families: the one list every layer derives its per-family facts from.

A :class:`Family` says where its files come from (fixed upstream files, or discovery from the utilization
listing), how to read them (:mod:`pipelines.families.schemas`), how they are partitioned, which columns
identify one raw row and which dbt fact models read them partition by partition. Landing, loading,
validation, the quarantine, pending partitions, the sensor, the Dagster assets and the dbt sources
(``_raw__sources.yml``, generated from this list by :mod:`pipelines.warehouse.dbt_sources`) all take it
from here. Its Great Expectations suite names the family by its key (``expectations/``, which imports this
package, not the other way round). Adding a family means adding it here, writing its suite (listed in
``expectations.SUITES``) and its staging model (and ``make generated``, which writes its dbt sources).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pipelines.families import schemas as s
from pipelines.families.upstream import (
    IPMI_FILES,
    UTILIZATION_DIR,
    UpstreamFile,
    burstgpt_file,
    discover_utilization,
)

FamilyKind = Literal["jobs", "summary", "previous_work", "requests", "utilization", "ipmi"]
Partitioning = Literal["month", "day_index", "date", "none"]

ROW_KEY = ("_source_file", "_row_number")
# The utilization families' lake models: one row per line and per series a partition holds, the kept samples
# of those that may repeat (the sample fact fct_node_metric is a view over the raw lake joined to these), the
# samples' per-hour bins (their one scan after the load), and the hours and histograms merged from those.
UTILIZATION_MODELS = (
    "int_node_metric_lines", "int_node_metric_series", "int_node_metric_repeats", "int_utilization_hour_bins",
    "utilization_hourly", "utilization_histogram",
)  # fmt: skip


@dataclass(frozen=True)
class Family:
    """One file family: the unit that becomes one raw relation (``raw.<key>``)."""

    source: Literal["acme", "burstgpt"]
    name: str
    kind: FamilyKind
    partitioning: Partitioning
    # what ``raw.<key>`` holds, one row of it: the dbt source's description and the Dagster assets'
    description: str
    schema: s.FileSchema
    files: tuple[UpstreamFile, ...] = ()  # fixed upstream files; utilization families discover theirs
    # dbt models that replace this family's changed partitions: the lake models that read its raw partitions
    partition_models: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.source}__{self.name}"

    @property
    def catalog_name(self) -> str:
        return f"{self.source}.{self.name}"

    @property
    def discovered(self) -> bool:
        """Its files come from the utilization listing, not from fixed paths."""
        return self.kind == "utilization"

    @property
    def row_key(self) -> tuple[str, ...]:
        """The columns that identify one raw row (a wide file's raw row is one cell: line and series)."""
        return (*ROW_KEY, "series") if self.schema.layout == "wide" else ROW_KEY


def _file(family: str, host: str, path: str, **kw: object) -> UpstreamFile:
    return UpstreamFile(family, host, path, **kw)  # type: ignore[arg-type]


def _previous_work(name: str, label: str) -> Family:
    key = f"acme__{name}_jobs"
    return Family(
        "acme", f"{name}_jobs", "previous_work", "none",
        f"{label} trace (previous work). Header-driven: only the numeric columns the upstream notebook uses are "
        "typed, and they and the state and time columns are always present (NULL when the header lacks them; "
        "times as text); other header columns are carried as text.",
        s.PREVIOUS_WORK,
        (_file(key, "huggingface", f"data/job_trace/trace_previous_work/{name}_trace.csv"),), ("fct_job",),
    )  # fmt: skip


def _burstgpt(
    name: str, stem: str, description: str, partition_models: tuple[str, ...], published: dict
) -> Family:
    key = f"burstgpt__{name}"
    return Family(
        "burstgpt", name, "requests", "day_index", description, s.REQUESTS,
        tuple(burstgpt_file(tag, f"{stem}_{n}.csv", key, *published.get(n, ())) for n, tag in
              ((1, "v1.1"), (2, "v1.1"), (3, "v2.0"))),
        partition_models,
    )  # fmt: skip


FAMILIES: tuple[Family, ...] = (
    Family(
        "acme", "seren_jobs", "jobs", "month",
        "Seren job trace: one row per line of trace_seren.csv (times written in UTC+8).",
        s.SEREN_JOBS,
        (_file("acme__seren_jobs", "github_raw", "data/job_trace/trace_seren.csv", cluster="seren"),),
        ("fct_job",),
    ),
    Family(
        "acme", "kalos_jobs", "jobs", "month",
        "Kalos job trace: one row per line of trace_kalos.csv (times written in UTC).",
        s.KALOS_JOBS,
        (_file("acme__kalos_jobs", "github_raw", "data/job_trace/trace_kalos.csv", cluster="kalos"),),
        ("fct_job",),
    ),
    Family(
        "acme", "cluster_summary", "summary", "none",
        "cluster_summary.csv: the published per-cluster summary (5 clusters).",
        s.CLUSTER_SUMMARY,
        (_file(
            "acme__cluster_summary", "github_raw", "data/cluster_summary.csv", published_bytes=1269,
            published_sha256="cde7a7d4ba1596ea165cf4583137d2095020abebbc26b3cd834284c16e8e6ecf",
        ),),
    ),
    _previous_work("helios", "Helios"),
    _previous_work("philly", "Philly"),
    _previous_work("pai", "PAI"),
    Family(
        "acme", "gpu_metrics", "utilization", "date",
        "DCGM GPU metrics, unpivoted: one row per non-empty cell of a wide file.",
        s.UTILIZATION, (), UTILIZATION_MODELS,
    ),
    Family(
        "acme", "node_metrics", "utilization", "date",
        "Prometheus node metrics, unpivoted: one row per non-empty cell of a wide file.",
        s.UTILIZATION, (), UTILIZATION_MODELS,
    ),
    Family(
        "acme", "ipmi_power", "ipmi", "date",
        "Seren IPMI power. Header-driven: time and sys_total_power always; the server id and component columns "
        "when the header has them.",
        s.IPMI,
        tuple(
            _file("acme__ipmi_power", "huggingface", f"{UTILIZATION_DIR}/ipmi/{stem}.csv", cluster="seren",
                  metric=stem)
            for stem in IPMI_FILES
        ),
        ("fct_server_power",),
    ),
    _burstgpt(
        "requests", "BurstGPT",
        "BurstGPT files 1-3: one row per request line (exact duplicates are real requests).", ("fct_request",),
        {
            1: (52_283_111, "4bb3783693d0a435686fbfc885615d2349bd067239079fa4b749f2e679e12122"),
            2: (144_819_209, "44bf5942b03fca42c01a226a545ad3a750ec62688faecd67b6831c56a8928bf7"),
        },
    ),
    _burstgpt(
        "requests_without_fails", "BurstGPT_without_fails",
        "BurstGPT without-fails twins (cross-file check only; not in fct_request).", (),
        {
            1: (51_429_517, "a4d068a7113ec0290e74063a1b3447dc6001a30e4298eb313581b71006dda1f4"),
            2: (142_376_815, "56193aa9b2bb26128ded43d2d29a960df6bf5af062bcfc9b005f3fcaa4e6e501"),
        },
    ),
)  # fmt: skip


def all_families() -> tuple[Family, ...]:
    """Every family, in catalog order (read at call time, so a family added to ``FAMILIES`` is seen)."""
    return FAMILIES


def family_keys() -> list[str]:
    return [f.key for f in all_families()]


def family(key: str) -> Family:
    for fam in all_families():
        if fam.key == key:
            return fam
    raise KeyError(f"unknown file family {key!r}; known: {', '.join(family_keys())}")


def fixed_files() -> list[UpstreamFile]:
    """Every upstream file at a fixed path (all but the discovered utilization files)."""
    return [f for fam in all_families() for f in fam.files]


def files_for(family_keys: Iterable[str], utilization_listing: Iterable[str] = ()) -> list[UpstreamFile]:
    """Every upstream file of the given families (discovered families' from the listing)."""
    wanted = [family(k) for k in family_keys]
    files = [f for fam in wanted for f in fam.files]
    discovered = {fam.key for fam in wanted if fam.discovered}
    if discovered:
        files += [f for f in discover_utilization(utilization_listing).files if f.family in discovered]
    return files


def needs_listing(family_keys: Iterable[str]) -> bool:
    """Whether finding these families' files needs the utilization listing."""
    return any(family(k).discovered for k in family_keys)


def upstream_file(mirror_path: str) -> UpstreamFile | None:
    """The catalog's file at ``mirror_path``: a fixed file, or a utilization file its path describes."""
    for f in fixed_files():
        if f.mirror_path == mirror_path:
            return f
    repo_path = mirror_path.split("/", 4)[-1]  # huggingface/datasets/Qinghao/AcmeTrace/<repo path>
    found = discover_utilization([repo_path]).files
    return found[0] if found else None
