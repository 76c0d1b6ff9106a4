"""Where upstream files live: one :class:`UpstreamFile` per CSV, and the discovery of utilization files.

Fixed paths for the GitHub files and the BurstGPT release assets are listed with their family in
:mod:`pipelines.families.registry`; utilization files are *discovered* from a listing (the HuggingFace repo
or a mirror folder), because which metrics exist and which are split into ``<METRIC>-2023-*.csv`` pieces
is not documented upstream.

A file is named everywhere by its **mirror path** (docs/pages/architecture.md, Mirror layout), which is also its path under
``$WAREHOUSE_DIR/landing/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pipelines.settings import Settings

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
OTHER_METRICS = "other"  # the file partition of the metrics DATASETS.md does not list
IPMI_FILES = ("GPU_AB_Power", "GPU_C_Power", "CPU_D_Power")
UTILIZATION_DIR = "data/utilization"


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
    def is_metric_file(self) -> bool:
        """A utilization metric file (``acme__gpu_metrics`` or ``acme__node_metrics``), not an IPMI one."""
        return self.family.endswith("metrics")

    @property
    def stem(self) -> str:
        """A name unique within the family, used for Parquet file names (``kalos-GPU_UTIL``)."""
        base = self.file_name.removesuffix(".csv")
        return f"{self.cluster}-{base}" if self.cluster and self.is_metric_file else base

    @property
    def partition(self) -> str | None:
        """A utilization file's partition (``kalos/GPU_UTIL``; the pieces of a split metric share it; a metric
        DATASETS.md does not list is ``<cluster>/other``), the unit a user loads on its own; None otherwise."""
        if not self.is_metric_file or self.cluster is None or self.metric is None:
            return None
        return f"{self.cluster}/{self.metric if self.documented else OTHER_METRICS}"

    def url(self, settings: Settings) -> str:
        if self.host == "github_raw":
            return f"{settings.github_raw_url}/{ACME_GITHUB_REPO}/{ACME_GITHUB_BRANCH}/{self.repo_path}"
        if self.host == "github_release":
            return f"{settings.github_url}/{BURSTGPT_GITHUB_REPO}/releases/download/{self.repo_path}"
        endpoint = settings.hf_url
        return f"{endpoint}/datasets/{ACME_HF_REPO}/resolve/main/{self.repo_path}"


def burstgpt_file(
    tag: str, name: str, fam: str, size: int | None = None, sha: str | None = None
) -> UpstreamFile:
    return UpstreamFile(fam, "github_release", f"{tag}/{name}", published_bytes=size, published_sha256=sha)


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


def file_partitions(family_key: str) -> tuple[str, ...]:
    """Every partition a utilization family's files can fall in: cluster x documented metric, plus each
    cluster's ``other``, in a stable order (cluster, then the metric's place in the catalogue)."""
    metrics = [m for m in (*DCGM_METRICS, *PROMETHEUS_METRICS) if metric_family(m) == family_key]
    return tuple(f"{c}/{m}" for c in CLUSTERS for m in (*metrics, OTHER_METRICS))


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
