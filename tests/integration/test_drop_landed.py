"""``TRACE_DROP_LANDED=1``: a landed copy is deleted once its Parquet is published; the landing manifest keeps
its size and sha256 (and ETag, remote), so an unchanged upstream file is not copied again and its load is
skipped, while a changed one lands and loads as before. Real files, real landing and load."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import duckdb

from pipelines.sample.source import trace_source
from pipelines.settings import load_settings
from pipelines.sources.landing import land_files
from pipelines.sources.manifest import read_landed
from pipelines.warehouse.raw_load import load_family
from tests.support.mirror_server import GPU_UTIL, SEREN_JOBS, upstream_files, write_tiny_mirror

FAMILIES = ("acme__gpu_metrics", "acme__seren_jobs")


def test_dropped_copies_are_not_fetched_again_and_loads_are_skipped(tmp_path: Path) -> None:
    root = tmp_path / "mirror"
    files = write_tiny_mirror(root)
    env = {"TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(root), "WAREHOUSE_DIR": str(tmp_path / "wh")}
    settings = load_settings({**env, "TRACE_DROP_LANDED": "1"})
    wanted = upstream_files([GPU_UTIL, SEREN_JOBS])
    assert land_files(settings, wanted, source=trace_source(settings)).ok
    assert all(not load_family(settings, fam).errors for fam in FAMILIES)

    for path in (GPU_UTIL, SEREN_JOBS):
        landed = read_landed(settings, path)
        assert landed is not None and landed.dropped and not landed.path.exists()
        assert landed.bytes == len(files[path]) and landed.sha256 == hashlib.sha256(files[path]).hexdigest()
    rows = duckdb.sql(f"select count(*) from '{settings.raw_dir}/acme__gpu_metrics/*/*.parquet'").fetchall()
    assert rows[0][0] > 0

    again = land_files(
        settings, wanted, source=trace_source(settings)
    )  # nothing changed upstream: nothing copied, still dropped
    assert again.ok and all(not f.changed and f.dropped and not f.path.exists() for f in again.landed)
    reloaded = [r for fam in FAMILIES for r in load_family(settings, fam).results]
    assert [r.mode for r in reloaded] == ["unchanged", "unchanged"]

    mirror_file = root / GPU_UTIL  # upstream touched: landed again (copied, verified), then dropped again
    os.utime(mirror_file, ns=(mirror_file.stat().st_atime_ns, mirror_file.stat().st_mtime_ns + 10**9))
    (changed,) = [
        f for f in land_files(settings, upstream_files([GPU_UTIL]), source=trace_source(settings)).landed
    ]
    assert changed.changed and not changed.dropped and changed.path.exists()
    assert not load_family(settings, "acme__gpu_metrics").errors
    final = read_landed(settings, GPU_UTIL)
    assert final is not None and final.dropped and not final.path.exists()


def test_without_the_setting_landed_copies_stay(tmp_path: Path) -> None:
    root = tmp_path / "mirror"
    write_tiny_mirror(root)
    settings = load_settings(
        {"TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(root), "WAREHOUSE_DIR": str(tmp_path / "wh")}
    )
    assert land_files(settings, upstream_files([GPU_UTIL]), source=trace_source(settings)).ok
    assert not load_family(settings, "acme__gpu_metrics").errors
    landed = read_landed(settings, GPU_UTIL)
    assert landed is not None and not landed.dropped and landed.path.exists()


def test_lost_lake_files_of_a_dropped_copy_are_a_clear_error(tmp_path: Path) -> None:
    root = tmp_path / "mirror"
    write_tiny_mirror(root)
    env = {"TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(root), "WAREHOUSE_DIR": str(tmp_path / "wh")}
    settings = load_settings({**env, "TRACE_DROP_LANDED": "1"})
    assert land_files(settings, upstream_files([GPU_UTIL]), source=trace_source(settings)).ok
    assert not load_family(settings, "acme__gpu_metrics").errors
    shutil.rmtree(settings.raw_dir / "acme__gpu_metrics")
    (error,) = load_family(settings, "acme__gpu_metrics").errors
    assert error.path.endswith("GPU_UTIL.csv") and "dropped after its load" in error.reason
    assert f"manifest/{GPU_UTIL}.json" in error.reason
