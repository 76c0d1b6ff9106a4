"""Wide utilization files ``data/utilization/{seren,kalos}/<METRIC>.csv`` (HuggingFace side).

``Time`` (``YYYY-MM-DD HH:MM:SS+08:00``, every 15 s from ``UTIL_WINDOW_START`` through ``util_days`` days
— ``gpu_util_days`` for GPU_UTIL — both ends included as a Prometheus range query returns them), then one
column per GPU ``<IP>-<index>`` (DCGM) or per node ``<IP>`` (Prometheus). Quirks placed on purpose: duplicate ``Time`` rows, an all-empty
row, an all-empty column, idle GPUs as empty profiling cells, Kalos node CPU above 100 %, Kalos
``SM_ACTIVE`` keyed by pod names, a header-only Kalos ``DRAM_ACTIVE``, Seren ``NODE_MEMORY_UTILIZATION``'s
spurious ``<IP>.1`` column, and one metric per cluster split into ``<METRIC>-<date>.csv`` pieces.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from pipelines.families.upstream import CLUSTERS, DCGM_METRICS, PROMETHEUS_METRICS
from pipelines.sample import calibration as cal
from pipelines.sample.formatting import csv_rows, decimals, epoch, times
from pipelines.sample.metric_values import metric_model
from pipelines.sample.params import Progress, SampleError, SampleParams
from pipelines.sample.paths import utilization_file
from pipelines.sample.sampling import stream
from pipelines.sample.writer import MirrorFile, WrittenFile
from pipelines.sources.mirror_manifest import MirrorEntry

UTC_OFFSET_HOURS = 8
QUIRK_IP = "10.140.0.131"  # Seren node whose NODE_MEMORY column gets the `.1` suffix [V]
SEREN_README_IP = "10.140.1.10"
SUBNETS = {"seren": ("10.140.0", "10.140.1"), "kalos": ("10.130.0", "10.130.1")}  # Kalos range assumed
KALOS_POD_PREFIX = "lingjun-pod9-"
KALOS_README_POD = 16  # lingjun-pod9-0016
SPLIT_METRICS = {"seren": "GPU_UTIL", "kalos": "NODE_CPU_UTILIZATION"}  # written only as daily pieces
POD_COLUMN_METRICS = {("kalos", "SM_ACTIVE")}
HEADER_ONLY_METRICS = {("kalos", "DRAM_ACTIVE")}
EMPTY_NODE_COLUMN_METRICS = ("NODE_IB_SEND", "NODE_IB_RECEIVE")  # the last node has no IB reading


@dataclass(frozen=True)
class ClusterLayout:
    """One cluster's utilization frame: nodes, sample times, which GPU is busy when, where quirks sit."""

    cluster: str
    ips: tuple[str, ...]
    pods: tuple[str, ...]
    epochs: np.ndarray  # (samples,) of the longest window (GPU_UTIL's when it has more days)
    busy: np.ndarray  # (samples, gpus) bool
    duplicate_rows: np.ndarray  # sample indexes written twice (inside every metric's window)
    empty_row: int  # sample index whose cells are all empty (inside every metric's window)
    samples: int  # samples of every metric but GPU_UTIL (util_days)
    gpu_util_samples: int  # samples of GPU_UTIL (gpu_util_days)

    def metric_samples(self, metric: str) -> int:
        return self.gpu_util_samples if metric == "GPU_UTIL" else self.samples

    def columns(self, metric: str) -> list[str]:
        if metric in PROMETHEUS_METRICS:
            return list(self.ips)
        hosts = self.pods if (self.cluster, metric) in POD_COLUMN_METRICS else self.ips
        return [f"{h}-{g}" for h in hosts for g in range(cal.GPUS_PER_NODE)]

    def node_busy(self, rows: slice) -> np.ndarray:
        b = self.busy[rows]
        return b.reshape(len(b), len(self.ips), cal.GPUS_PER_NODE).mean(axis=2)


def window_samples(days: int) -> int:
    """Samples in ``days`` days every 15 s, both ends included."""
    return days * cal.SECONDS_PER_DAY // cal.SAMPLE_SECONDS + 1


def sample_epochs(params: SampleParams) -> np.ndarray:
    start = epoch(cal.UTIL_WINDOW_START)
    days = max(params.util_days, params.gpu_util_window_days)
    return start + cal.SAMPLE_SECONDS * np.arange(window_samples(days), dtype=np.int64)


def cluster_ips(rng: np.random.Generator, cluster: str, n: int) -> tuple[str, ...]:
    """``n`` distinct node IPs of a cluster, in numeric order (Seren's include the README's IPs)."""
    pool = [f"{net}.{host}" for net in SUBNETS[cluster] for host in range(1, 255)]
    fixed = [QUIRK_IP, SEREN_README_IP] if cluster == "seren" else []
    rest = [ip for ip in pool if ip not in fixed]
    chosen = fixed[:n] + [rest[i] for i in rng.choice(len(rest), size=max(n - len(fixed), 0), replace=False)]
    return tuple(sorted(chosen, key=lambda ip: tuple(int(p) for p in ip.split("."))))


def kalos_pods(rng: np.random.Generator, n: int) -> tuple[str, ...]:
    """Pod host names like ``lingjun-pod9-0016`` (one per node; the pod ↔ node pairing is assumed)."""
    others = [k for k in range(1, 513) if k != KALOS_README_POD]
    numbers = [KALOS_README_POD, *(others[i] for i in rng.choice(len(others), size=n - 1, replace=False))]
    return tuple(f"{KALOS_POD_PREFIX}{k:04d}" for k in sorted(numbers))


def busy_timeline(rng: np.random.Generator, samples: int, gpus: int, idle_share: float) -> np.ndarray:
    """Per GPU, alternating busy and idle spells with exponential lengths; idle a share ``idle_share``."""
    busy_mean = cal.GPU_BUSY_MEAN_S / cal.SAMPLE_SECONDS
    idle_mean = busy_mean * idle_share / (1 - idle_share)
    spells = int(2 * samples / (busy_mean + idle_mean)) + 8
    out = np.zeros((samples, gpus), dtype=bool)
    for g in range(gpus):
        first_busy = rng.random() >= idle_share
        lengths = np.column_stack([rng.exponential(busy_mean, spells), rng.exponential(idle_mean, spells)])
        if not first_busy:
            lengths = lengths[:, ::-1]
        edges = np.cumsum(np.maximum(np.rint(lengths.ravel()), 1)).astype(np.int64)
        spell = np.searchsorted(edges, np.arange(samples), side="right")
        out[:, g] = (spell % 2 == 0) == first_busy
    return out


def build_layout(params: SampleParams, cluster: str) -> ClusterLayout:
    rng = stream(params.seed, f"util/{cluster}/layout")
    ips = cluster_ips(rng, cluster, params.util_nodes)
    pods = kalos_pods(rng, params.util_nodes) if cluster == "kalos" else ()
    epochs = sample_epochs(params)
    busy = busy_timeline(rng, len(epochs), len(ips) * cal.GPUS_PER_NODE, cal.GPU_IDLE_SHARE[cluster])
    shortest = window_samples(min(params.util_days, params.gpu_util_window_days))  # quirks in every file
    picks = rng.choice(np.arange(1, shortest - 1), size=cal.DUPLICATE_TIME_ROWS + 1, replace=False)
    return ClusterLayout(
        cluster, ips, pods, epochs, busy, np.sort(picks[1:]), int(picks[0]),
        samples=window_samples(params.util_days), gpu_util_samples=window_samples(params.gpu_util_window_days),
    )  # fmt: skip


@dataclass(frozen=True)
class CellPatch:
    """Cells set to fixed values in one file (forced rare values), by sample row and column."""

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray

    def apply(self, values: np.ndarray, rows: slice) -> None:
        inside = (self.rows >= rows.start) & (self.rows < rows.stop)
        values[self.rows[inside] - rows.start, self.cols[inside]] = self.values[inside]


def cell_patch(params: SampleParams, layout: ClusterLayout, metric: str, width: int) -> CellPatch | None:
    """Kalos node CPU above 100 % (max exactly 238.9); one guaranteed non-zero XID per file."""
    rng = stream(params.seed, f"util/{layout.cluster}/{metric}/patch")
    candidates = np.setdiff1d(np.arange(layout.metric_samples(metric)), [layout.empty_row])
    if layout.cluster == "kalos" and metric == "NODE_CPU_UTILIZATION":
        k = cal.KALOS_NODE_CPU_OVER_100_CELLS
        values = np.round(rng.uniform(100.5, cal.KALOS_NODE_CPU_MAX - 0.1, k), 3)
        values[0] = cal.KALOS_NODE_CPU_MAX
        return CellPatch(rng.choice(candidates, k), rng.integers(0, width, k), values)
    if metric == "XID_ERRORS":
        return CellPatch(rng.choice(candidates, 1), rng.integers(0, width - 1, 1), np.array([79.0]))
    return None


def memory_quirk_column(layout: ClusterLayout, values: np.ndarray, rows: slice) -> np.ndarray:
    """Seren NODE_MEMORY: inside the quirk window the quirk node's values move to a ``<IP>.1`` column."""
    lo, hi = (epoch(t) for t in cal.NODE_MEMORY_QUIRK_WINDOW)
    t = layout.epochs[rows]
    inside = (t >= lo) & (t < hi)
    col = layout.ips.index(QUIRK_IP)
    spurious = np.where(inside, values[:, col], np.nan)
    values[inside, col] = np.nan
    return np.column_stack([values, spurious])


def metric_header(layout: ClusterLayout, metric: str) -> list[str]:
    extra = [f"{QUIRK_IP}.1"] if (layout.cluster, metric) == ("seren", "NODE_MEMORY_UTILIZATION") else []
    return ["Time", *layout.columns(metric), *extra]


def _chunk_values(
    rng: np.random.Generator, layout: ClusterLayout, metric: str, rows: slice, patch: CellPatch | None
) -> np.ndarray:
    model = metric_model(metric)
    state = layout.busy[rows] if model.per_gpu else layout.node_busy(rows)
    values = model.values(rng, state, layout.cluster).astype(float)
    if patch is not None:
        patch.apply(values, rows)
    if model.per_gpu or metric in EMPTY_NODE_COLUMN_METRICS:
        values[:, -1] = np.nan  # an all-empty column (a dead GPU / a node without IB)
    if layout.empty_row in range(rows.start, rows.stop):
        values[layout.empty_row - rows.start, :] = np.nan
    if (layout.cluster, metric) == ("seren", "NODE_MEMORY_UTILIZATION"):
        values = memory_quirk_column(layout, values, rows)
    return values


def _formatted_chunks(
    params: SampleParams, layout: ClusterLayout, metric: str
) -> Iterator[tuple[np.ndarray, dict[str, pa.Array]]]:
    """Per chunk of samples: the day (+08:00) of each written row, and the formatted columns (duplicate
    ``Time`` rows already repeated)."""
    model = metric_model(metric)
    rng = stream(params.seed, f"util/{layout.cluster}/{model.stream or metric}")
    width = len(metric_header(layout, metric)) - 1
    patch = cell_patch(params, layout, metric, width)
    step = max(1, cal.UTIL_CHUNK_CELLS // width)
    samples = layout.metric_samples(metric)
    for a in range(0, samples, step):
        rows = slice(a, min(a + step, samples))
        values = _chunk_values(rng, layout, metric, rows, patch)
        repeat = 1 + np.isin(np.arange(rows.start, rows.stop), layout.duplicate_rows)
        order = np.repeat(np.arange(rows.stop - rows.start), repeat)
        t = layout.epochs[rows][order]
        flat = decimals(values[order].T.ravel(), model.places)
        cols = {"Time": times(t, UTC_OFFSET_HOURS)}
        cols |= {f"c{j}": flat.slice(j * len(order), len(order)) for j in range(width)}
        yield (t + UTC_OFFSET_HOURS * 3600) // cal.SECONDS_PER_DAY, cols


class MetricFiles:
    """The file(s) of one metric: rows go to ``<METRIC>.csv``, or, for a split metric, to the
    ``<METRIC>-<date>.csv`` piece of their +08:00 date (rows arrive in time order, one piece at a time)."""

    def __init__(self, root: Path, layout: ClusterLayout, metric: str, split: bool) -> None:
        self.root, self.layout, self.metric, self.split = root, layout, metric, split
        self.header = metric_header(layout, metric)
        self.written: list[WrittenFile] = []
        self._open: tuple[str, MirrorFile] | None = None

    def stem(self, day: int) -> str:
        return (
            f"{self.metric}-{np.datetime_as_string(np.datetime64(day, 'D'))}" if self.split else self.metric
        )

    def write(self, stem: str, data: bytes) -> None:
        if self._open is None or self._open[0] != stem:
            self.close()
            path = utilization_file(self.layout.cluster, self.metric, stem).mirror_path
            self._open = (stem, MirrorFile(self.root, path, self.header))
        self._open[1].write(data)

    def close(self) -> None:
        if self._open is not None:
            self.written.append(self._open[1].close())
            self._open = None

    def __enter__(self) -> MetricFiles:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        if exc_type is None:
            self.close()
        elif self._open is not None:
            self._open[1].abort()


def write_metric(root: Path, params: SampleParams, layout: ClusterLayout, metric: str) -> list[WrittenFile]:
    """One metric of one cluster: a whole ``<METRIC>.csv``, or ``<METRIC>-<date>.csv`` pieces."""
    split = SPLIT_METRICS[layout.cluster] == metric
    with MetricFiles(root, layout, metric, split) as files:
        if (layout.cluster, metric) in HEADER_ONLY_METRICS:
            files.write(metric, b"")  # header only
        else:
            for days, cols in _formatted_chunks(params, layout, metric):
                starts = [0, *(np.flatnonzero(np.diff(days)) + 1).tolist()]
                for a, b in zip(starts, [*starts[1:], len(days)], strict=True):
                    files.write(
                        files.stem(int(days[a])), csv_rows({k: v.slice(a, b - a) for k, v in cols.items()})
                    )
    return files.written


def file_note(cluster: str, metric: str) -> str | None:
    if (cluster, metric) in HEADER_ONLY_METRICS:
        return "synthetic; header-only, as reported upstream for Kalos DRAM_ACTIVE [S]"
    if (cluster, metric) in POD_COLUMN_METRICS:
        return "synthetic; columns are pod names <pod>-<gpu index> [S]; which pod is which node IP is assumed"
    if (cluster, metric) == ("seren", "NODE_MEMORY_UTILIZATION"):
        lo, hi = cal.NODE_MEMORY_QUIRK_WINDOW
        return f"synthetic; {QUIRK_IP}'s values sit in column {QUIRK_IP}.1 from {lo} until {hi} [V quirk]"
    return None


ALL_METRICS = (*DCGM_METRICS, *PROMETHEUS_METRICS)


def utilization_selection(names: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """``cluster/METRIC`` names (``all``, ``kalos/all`` and ``all/GPU_UTIL`` allowed) as (cluster, metric)
    pairs in generation order; an unknown name is a SampleError listing the known ones."""
    chosen: set[tuple[str, str]] = set()
    for name in names:
        cluster, _, metric = name.partition("/") if name != "all" else ("all", "", "all")
        clusters = CLUSTERS if cluster == "all" else (cluster,)
        metrics = ALL_METRICS if metric == "all" else (metric,)
        if not set(clusters) <= set(CLUSTERS) or not set(metrics) <= set(ALL_METRICS):
            raise SampleError(
                f"unknown utilization file {name!r}: use <cluster>/<METRIC> with cluster in "
                f"{', '.join(CLUSTERS)} (or all) and METRIC in {', '.join(ALL_METRICS)} (or all)"
            )
        chosen |= {(c, m) for c in clusters for m in metrics}
    return tuple((c, m) for c in CLUSTERS for m in ALL_METRICS if (c, m) in chosen)


def write_utilization(
    root: Path, params: SampleParams, progress: Progress, layouts: dict[str, ClusterLayout],
    only: Sequence[tuple[str, str]] | None = None,
) -> dict[str, MirrorEntry]:  # fmt: skip
    """Every metric file of both clusters, or the ``only`` (cluster, metric) pairs."""
    entries: dict[str, MirrorEntry] = {}
    for cluster, layout in layouts.items():
        for metric in ALL_METRICS:
            if only is not None and (cluster, metric) not in only:
                continue
            note = file_note(cluster, metric)
            for written in write_metric(root, params, layout, metric):
                extra = {"note": note} if note else {}
                entries[written.mirror_path] = written.entry("synthetic", **extra)
                progress(f"{written.mirror_path}: {written.lines - 1:,} rows")
    return entries
