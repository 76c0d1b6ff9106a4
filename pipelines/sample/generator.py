"""``generate_sample``: write the whole synthetic mirror, its ``MANIFEST.json`` and ``README.txt``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pipelines.families.upstream import CLUSTERS
from pipelines.sample.calibration import DEFAULT_SCALE
from pipelines.sample.ipmi import write_ipmi
from pipelines.sample.kalos_jobs import write_kalos_jobs
from pipelines.sample.params import Progress, SampleParams
from pipelines.sample.paths import fixed_file
from pipelines.sample.previous_work import write_previous_work
from pipelines.sample.readme import README_NAME, readme_text
from pipelines.sample.real_rows import CLUSTER_SUMMARY, real_bytes
from pipelines.sample.requests import write_requests
from pipelines.sample.seren_jobs import write_seren_jobs
from pipelines.sample.utilization import build_layout, utilization_selection, write_utilization
from pipelines.sample.writer import TEMP_SUFFIX, write_bytes
from pipelines.sources import mirror_manifest
from pipelines.sources.mirror_manifest import MirrorEntry, MirrorManifest, MirrorManifestError

# The real utilization shape (DATASETS.md): Kalos GPU_UTIL is 77,403 rows x 2,345 columns (293 nodes x 8 GPUs),
# two to three weeks of 15-s samples; 14 days give 80,641 samples (+ the duplicate rows) at that width.
REAL_SHAPE = {"util_nodes": 293, "util_days": 14, "gpu_util_days": 14}

GENERATOR_NOTE = (
    "SYNTHETIC rows generated at random (deterministic for these arguments), except the lines each "
    "file lists in real_lines and files whose origin is real"
)


def _quiet(message: str) -> None:
    """The default progress callback: say nothing."""


def write_cluster_summary(root: Path, progress: Progress) -> dict[str, MirrorEntry]:
    target = fixed_file("acme__cluster_summary", "cluster_summary.csv")
    written = write_bytes(root, target.mirror_path, real_bytes(CLUSTER_SUMMARY))
    progress(f"{target.mirror_path}: copied (real)")
    return {target.mirror_path: written.entry("real")}


def _previous_files(out: Path) -> set[str]:
    try:
        previous = mirror_manifest.read(out)
    except MirrorManifestError:
        return set()
    return set(previous.files) if previous else set()


def remove_stale(out: Path, previous: set[str], current: set[str]) -> None:
    """Delete files a previous sample listed that this one does not, leftover temp files, and the
    folders that leaves empty. Files no manifest listed (a user's own) are left alone."""
    for rel in sorted(previous - current):
        path = out / rel
        path.unlink(missing_ok=True)
        _remove_empty_parents(path, out)
    for tmp in sorted(out.rglob(f"*{TEMP_SUFFIX}")):
        tmp.unlink()


def _remove_empty_parents(path: Path, out: Path) -> None:
    for parent in path.parents:
        if parent == out or not parent.is_relative_to(out) or not parent.is_dir():
            return
        if any(parent.iterdir()):
            return
        parent.rmdir()


def generate_sample(
    out: Path,
    *,
    scale: float = DEFAULT_SCALE,
    util_nodes: int = 4,
    util_days: int = 1,
    gpu_util_days: int | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    utilization_only: Sequence[str] | None = None,
) -> MirrorManifest:
    """Write a synthetic mirror of every upstream file at ``out`` (paths = the catalog's mirror paths),
    with ``MANIFEST.json`` and ``README.txt``. Same arguments → byte-identical files.

    ``utilization_only`` (``cluster/METRIC`` names, ``all`` for every one): write only those utilization
    files (split metrics as their pieces), e.g. at the real shape (``REAL_SHAPE``) for the full-scale
    benchmark; the other files of the mirror are not written (a previous sample's are removed)."""
    params = SampleParams(
        scale=scale, util_nodes=util_nodes, util_days=util_days, seed=seed, gpu_util_days=gpu_util_days
    )
    report = progress or _quiet
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    previous = _previous_files(out)
    only = utilization_selection(utilization_only) if utilization_only is not None else None
    clusters = CLUSTERS if only is None else tuple(c for c in CLUSTERS if any(c == o[0] for o in only))
    layouts = {c: build_layout(params, c) for c in clusters}
    files: dict[str, MirrorEntry] = {}
    if only is None:
        files |= write_seren_jobs(out, params, report)
        files |= write_kalos_jobs(out, params, report)
        files |= write_cluster_summary(out, report)
        files |= write_previous_work(out, params, report)
        files |= write_requests(out, params, report)
    files |= write_utilization(out, params, report, layouts, only)
    if only is None:
        files |= write_ipmi(out, params, report, layouts["seren"])
    write_bytes(out, README_NAME, readme_text(params, files).encode("utf-8"))
    generator = {**params.as_json(), "note": GENERATOR_NOTE}
    if only is not None:
        generator["utilization_only"] = [f"{c}/{m}" for c, m in only]
    manifest = MirrorManifest(files, {"generator": generator})
    mirror_manifest.write(out, manifest)
    remove_stale(out, previous, set(files))
    report(f"{out / mirror_manifest.MANIFEST_NAME}: {len(files)} files")
    return manifest
