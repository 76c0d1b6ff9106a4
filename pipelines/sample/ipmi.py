"""Seren IPMI server power: ``data/utilization/ipmi/{GPU_AB_Power,GPU_C_Power,CPU_D_Power}.csv``.

**Layout unverified upstream**: only ``Time`` and ``Sys_Total_Power`` are [V]. The sample writes
``Time,IP,Sys_Total_Power,CPU_Power,Memory_Power``, one row per server and 15-s sample over the
utilization window; the ``IP`` column is an assumption. In ``GPU_AB_Power.csv`` type-B servers have an
empty ``Memory_Power`` (that is how A and B are told apart [S]); type A servers have it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from pipelines.families.upstream import IPMI_FILES
from pipelines.sample import calibration as cal
from pipelines.sample.formatting import csv_rows, decimals, times
from pipelines.sample.params import Progress, SampleParams
from pipelines.sample.paths import fixed_file
from pipelines.sample.sampling import stream
from pipelines.sample.utilization import UTC_OFFSET_HOURS, ClusterLayout, busy_timeline
from pipelines.sample.writer import MirrorFile
from pipelines.sources.mirror_manifest import MirrorEntry

COLUMNS = ("Time", "IP", "Sys_Total_Power", "CPU_Power", "Memory_Power")
SUBNETS = {"GPU_C_Power": "10.140.2", "CPU_D_Power": "10.140.3"}  # assumed
NOTE = (
    "synthetic; layout ASSUMED: only Time and Sys_Total_Power are verified upstream. The IP column "
    "(one row per server and sample), CPU_Power and Memory_Power are assumptions; in GPU_AB_Power.csv an "
    "empty Memory_Power marks a type-B server."
)


def type_a_servers(util_nodes: int) -> int:
    """GPU_AB servers are the Seren utilization nodes: the first half type A, the rest type B."""
    return (util_nodes + 1) // 2


def server_load(params: SampleParams, layout: ClusterLayout, stem: str) -> tuple[list[str], np.ndarray]:
    """IPs and a ``(samples, servers)`` busy fraction: the Seren GPU nodes for GPU_AB, other servers
    (own timelines) for GPU_C, a flat random load for the CPU servers of CPU_D."""
    if stem == "GPU_AB_Power":
        return list(layout.ips), layout.node_busy(slice(0, layout.samples))
    rng = stream(params.seed, f"ipmi/{stem}")
    n = max(1, params.util_nodes // 2)
    ips = [f"{SUBNETS[stem]}.{10 + k}" for k in range(n)]
    if stem == "CPU_D_Power":
        return ips, rng.uniform(0.0, 1.0, (layout.samples, n))
    busy = busy_timeline(rng, layout.samples, n * cal.GPUS_PER_NODE, cal.GPU_IDLE_SHARE["seren"])
    return ips, busy.reshape(layout.samples, n, cal.GPUS_PER_NODE).mean(axis=2)


def power_columns(
    rng: np.random.Generator, stem: str, load: np.ndarray, type_b: np.ndarray
) -> dict[str, np.ndarray]:
    lo, hi = cal.IPMI_CPU_SERVER_W if stem == "CPU_D_Power" else cal.IPMI_GPU_SERVER_W
    total = np.clip(lo + (hi - lo) * load + rng.normal(0, 40, load.shape), lo * 0.8, hi * 1.05)
    cpu = rng.uniform(*cal.IPMI_CPU_POWER_W, load.shape)
    memory = np.where(type_b, np.nan, rng.uniform(*cal.IPMI_MEMORY_POWER_W, load.shape))
    return {"Sys_Total_Power": np.rint(total), "CPU_Power": np.rint(cpu), "Memory_Power": np.rint(memory)}


def write_ipmi(
    root: Path, params: SampleParams, progress: Progress, seren: ClusterLayout
) -> dict[str, MirrorEntry]:
    entries: dict[str, MirrorEntry] = {}
    epochs = seren.epochs[: seren.samples]
    for stem in IPMI_FILES:
        target = fixed_file("acme__ipmi_power", f"{stem}.csv")
        ips, load = server_load(params, seren, stem)
        type_b = np.zeros(len(ips), dtype=bool)
        if stem == "GPU_AB_Power":
            type_b[type_a_servers(len(ips)) :] = True
        rng = stream(params.seed, f"ipmi/{stem}/power")
        step = max(1, cal.CHUNK_ROWS // len(ips))
        with MirrorFile(root, target.mirror_path, COLUMNS) as out:
            for a in range(0, len(epochs), step):
                rows = slice(a, min(a + step, len(epochs)))
                n = rows.stop - rows.start
                power = power_columns(rng, stem, load[rows], np.broadcast_to(type_b, (n, len(ips))))
                cols: dict[str, pa.Array] = {
                    "Time": times(np.repeat(epochs[rows], len(ips)), UTC_OFFSET_HOURS),
                    "IP": pa.array(np.tile(np.asarray(ips), n)),
                }
                cols |= {k: decimals(v.ravel(), 0) for k, v in power.items()}
                out.write(csv_rows(cols))
        progress(f"{target.mirror_path}: {out.lines - 1:,} rows (layout assumed)")
        entries[target.mirror_path] = out.written.entry("synthetic", unverified_layout=True, note=NOTE)
    return entries
