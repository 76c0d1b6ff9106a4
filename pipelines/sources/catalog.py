"""What exists upstream: every file family of AcmeTrace and BurstGPT, and where each file lives.

Fixed paths for the GitHub files and the BurstGPT release assets; utilization files are *discovered*
from a listing (the HuggingFace repo or a mirror folder), because which metrics exist and which are
split into ``<METRIC>-2023-*.csv`` pieces is not documented upstream.

A file is named everywhere by its **mirror path** (DESIGN §1), which is also its path under
``$WAREHOUSE_DIR/landing/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pipelines.settings import Settings

FamilyKind = Literal["jobs", "summary", "previous_work", "requests", "utilization", "ipmi"]
Partitioning = Literal["month", "day_index", "date", "none"]
Host = Literal["github_raw", "github_release", "huggingface"]

ACME_GITHUB_REPO = "InternLM/AcmeTrace"
ACME_GITHUB_BRANCH = "master"
ACME_HF_REPO = "Qinghao/AcmeTrace"
BURSTGPT_GITHUB_REPO = "HPMLL/BurstGPT"

GITHUB_MIRROR_PREFIX = f"github/{ACME_GITHUB_REPO}/"
RELEASES_MIRROR_PREFIX = f"github/{BURSTGPT_GITHUB_REPO}/releases/download/"
HF_MIRROR_PREFIX = f"huggingface/datasets/{ACME_HF_REPO}/"

DCGM_METRICS = (
    "XID_ERRORS", "GPU_TEMP", "MEMORY_TEMP", "MEM_CLOCK", "MEM_COPY_UTIL", "FB_FREE", "FB_USED",
    "DRAM_ACTIVE", "POWER_USAGE", "GPU_UTIL", "PIPE_TENSOR_ACTIVE", "SM_ACTIVE", "SM_OCCUPANCY", "SM_CLOCK",
)  # fmt: skip
PROMETHEUS_METRICS = (
    "NODE_CPU_UTILIZATION", "NODE_MEMORY_UTILIZATION", "NODE_IB_SEND", "NODE_IB_RECEIVE",
)  # fmt: skip
CLUSTERS = ("seren", "kalos")
IPMI_FILES = ("GPU_AB_Power", "GPU_C_Power", "CPU_D_Power")
UTILIZATION_DIR = "data/utilization"


@dataclass(frozen=True)
class Family:
    """One file family: the unit that becomes one raw relation (``raw.<key>``)."""

    source: Literal["acme", "burstgpt"]
    name: str
    kind: FamilyKind
    partitioning: Partitioning
    description: str

    @property
    def key(self) -> str:
        return f"{self.source}__{self.name}"

    @property
    def catalog_name(self) -> str:
        return f"{self.source}.{self.name}"


FAMILIES: tuple[Family, ...] = (
    Family("acme", "seren_jobs", "jobs", "month", "Seren job trace (UTC+8 timestamps, integer job ids)"),
    Family("acme", "kalos_jobs", "jobs", "month", "Kalos job trace (UTC timestamps, 16-char job ids)"),
    Family("acme", "cluster_summary", "summary", "none", "Per-cluster summary published with AcmeTrace"),
    Family("acme", "helios_jobs", "previous_work", "none", "Helios trace (previous work, HuggingFace only)"),
    Family("acme", "philly_jobs", "previous_work", "none", "Philly trace (previous work, HuggingFace only)"),
    Family("acme", "pai_jobs", "previous_work", "none", "PAI trace (previous work, HuggingFace only)"),
    Family("acme", "gpu_metrics", "utilization", "date", "DCGM GPU metrics, unpivoted to one row per value"),
    Family("acme", "node_metrics", "utilization", "date", "Prometheus node metrics, unpivoted, long"),
    Family("acme", "ipmi_power", "ipmi", "date", "Seren IPMI server power (types A-D), long"),
    Family("burstgpt", "requests", "requests", "day_index", "BurstGPT files 1-3: one row per request"),
    Family(
        "burstgpt",
        "requests_without_fails",
        "requests",
        "day_index",
        "BurstGPT without-fails twins (cross-file check only; not loaded into fct_request)",
    ),
)
FAMILIES_BY_KEY = {f.key: f for f in FAMILIES}


def family(key: str) -> Family:
    try:
        return FAMILIES_BY_KEY[key]
    except KeyError:
        raise KeyError(f"unknown file family {key!r}; known: {', '.join(FAMILIES_BY_KEY)}") from None


@dataclass(frozen=True)
class UpstreamFile:
    """One upstream CSV: where it lives, which family it feeds, what is published about it."""

    family: str  # Family.key
    host: Host
    repo_path: str  # path inside the upstream repo / release ("data/..." or "v1.1/BurstGPT_1.csv")
    cluster: str | None = None  # seren | kalos for AcmeTrace files
    metric: str | None = None  # utilization metric or IPMI file stem
    published_bytes: int | None = None  # [V] published sizes, enforced in remote mode only
    published_sha256: str | None = None  # [V] published sha256, enforced in remote mode only
    documented: bool = True  # False for a discovered metric name DATASETS.md does not list

    @property
    def mirror_path(self) -> str:
        if self.host == "github_raw":
            return GITHUB_MIRROR_PREFIX + self.repo_path
        if self.host == "github_release":
            return RELEASES_MIRROR_PREFIX + self.repo_path
        return HF_MIRROR_PREFIX + self.repo_path

    @property
    def file_name(self) -> str:
        return self.repo_path.rsplit("/", 1)[-1]

    @property
    def stem(self) -> str:
        """A name unique within the family, used for Parquet file names (``kalos-GPU_UTIL``)."""
        base = self.file_name.removesuffix(".csv")
        return f"{self.cluster}-{base}" if self.cluster and self.family.endswith("metrics") else base

    def url(self, settings: Settings) -> str:
        if self.host == "github_raw":
            return f"{settings.github_raw_url}/{ACME_GITHUB_REPO}/{ACME_GITHUB_BRANCH}/{self.repo_path}"
        if self.host == "github_release":
            return f"{settings.github_url}/{BURSTGPT_GITHUB_REPO}/releases/download/{self.repo_path}"
        endpoint = settings.hf_endpoint or "https://huggingface.co"
        return f"{endpoint}/datasets/{ACME_HF_REPO}/resolve/main/{self.repo_path}"


def _burstgpt(tag: str, name: str, fam: str, size: int | None = None, sha: str | None = None) -> UpstreamFile:
    return UpstreamFile(fam, "github_release", f"{tag}/{name}", published_bytes=size, published_sha256=sha)


FIXED_FILES: tuple[UpstreamFile, ...] = (
    UpstreamFile("acme__seren_jobs", "github_raw", "data/job_trace/trace_seren.csv", cluster="seren"),
    UpstreamFile("acme__kalos_jobs", "github_raw", "data/job_trace/trace_kalos.csv", cluster="kalos"),
    UpstreamFile(
        "acme__cluster_summary",
        "github_raw",
        "data/cluster_summary.csv",
        published_bytes=1269,
        published_sha256="cde7a7d4ba1596ea165cf4583137d2095020abebbc26b3cd834284c16e8e6ecf",
    ),
    UpstreamFile("acme__helios_jobs", "huggingface", "data/job_trace/trace_previous_work/helios_trace.csv"),
    UpstreamFile("acme__philly_jobs", "huggingface", "data/job_trace/trace_previous_work/philly_trace.csv"),
    UpstreamFile("acme__pai_jobs", "huggingface", "data/job_trace/trace_previous_work/pai_trace.csv"),
    *(
        UpstreamFile("acme__ipmi_power", "huggingface", f"{UTILIZATION_DIR}/ipmi/{stem}.csv", "seren", stem)
        for stem in IPMI_FILES
    ),
    _burstgpt(
        "v1.1", "BurstGPT_1.csv", "burstgpt__requests", 52_283_111,
        "4bb3783693d0a435686fbfc885615d2349bd067239079fa4b749f2e679e12122",
    ),
    _burstgpt(
        "v1.1", "BurstGPT_2.csv", "burstgpt__requests", 144_819_209,
        "44bf5942b03fca42c01a226a545ad3a750ec62688faecd67b6831c56a8928bf7",
    ),
    _burstgpt("v2.0", "BurstGPT_3.csv", "burstgpt__requests"),
    _burstgpt(
        "v1.1", "BurstGPT_without_fails_1.csv", "burstgpt__requests_without_fails", 51_429_517,
        "a4d068a7113ec0290e74063a1b3447dc6001a30e4298eb313581b71006dda1f4",
    ),
    _burstgpt(
        "v1.1", "BurstGPT_without_fails_2.csv", "burstgpt__requests_without_fails", 142_376_815,
        "56193aa9b2bb26128ded43d2d29a960df6bf5af062bcfc9b005f3fcaa4e6e501",
    ),
    _burstgpt("v2.0", "BurstGPT_without_fails_3.csv", "burstgpt__requests_without_fails"),
)  # fmt: skip

_METRIC_FILE = re.compile(
    rf"^{UTILIZATION_DIR}/(?P<cluster>seren|kalos)/(?P<metric>[A-Z0-9_]+?)(?P<piece>-2023-[^/]*)?\.csv$"
)


@dataclass(frozen=True)
class Discovery:
    """The outcome of reading a utilization listing: what will be fetched and what will not, and why."""

    files: tuple[UpstreamFile, ...]
    skipped: tuple[tuple[str, str], ...]  # (repo path, reason) — listed, never silently dropped


def metric_family(metric: str) -> str:
    """DCGM metrics (and unknown non-NODE_ metrics) are GPU metrics; Prometheus ones are node metrics."""
    return "acme__node_metrics" if metric.startswith("NODE_") else "acme__gpu_metrics"


def discover_utilization(listing: Iterable[str]) -> Discovery:
    """Pick the utilization files out of a repo listing (paths like ``data/utilization/kalos/GPU_UTIL.csv``).

    As the upstream notebook does: ``<METRIC>.csv`` when present, else every ``<METRIC>-2023-*.csv`` piece
    in sorted order. Pieces shadowed by a whole file are reported in ``skipped``.
    """
    whole: dict[tuple[str, str], str] = {}
    pieces: dict[tuple[str, str], list[str]] = {}
    for path in sorted(set(listing)):
        m = _METRIC_FILE.match(path)
        if not m:
            continue
        key = (m["cluster"], m["metric"])
        if m["piece"]:
            pieces.setdefault(key, []).append(path)
        else:
            whole[key] = path
    files: list[UpstreamFile] = []
    skipped: list[tuple[str, str]] = []
    for key in sorted(set(whole) | set(pieces)):
        cluster, metric = key
        documented = metric in DCGM_METRICS or metric in PROMETHEUS_METRICS
        chosen = [whole[key]] if key in whole else pieces[key]
        if key in whole:
            skipped += [(p, f"piece of {metric} shadowed by {whole[key]}") for p in pieces.get(key, [])]
        files += [
            UpstreamFile(metric_family(metric), "huggingface", p, cluster, metric, documented=documented)
            for p in chosen
        ]
    return Discovery(tuple(files), tuple(skipped))


def files_for(family_keys: Iterable[str], utilization_listing: Iterable[str] = ()) -> list[UpstreamFile]:
    """Every upstream file of the given families (utilization from the listing)."""
    wanted = set(family_keys)
    files = [f for f in FIXED_FILES if f.family in wanted]
    if wanted & {"acme__gpu_metrics", "acme__node_metrics"}:
        files += [f for f in discover_utilization(utilization_listing).files if f.family in wanted]
    return files
