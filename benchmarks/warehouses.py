"""Benchmark warehouses: their settings and environment, landing files into them, resetting them between runs.

Every warehouse lives in the harness's work folder, never in ``./warehouse``. Landing (a copy from the
generated mirror) is set-up, not measured — except in the ``fetch`` stage, which lands over HTTP.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pipelines.families.upstream import HF_MIRROR_PREFIX, UTILIZATION_DIR, UpstreamFile
from pipelines.settings import SETTINGS_VARS, Settings, load_settings

# What a reset keeps: the landed files and their manifest (the input), and the Dagster instance.
KEPT_ON_RESET = frozenset({"landing", "manifest", ".dagster"})


def warehouse_env(warehouse: Path, mirror: Path | None = None, **extra: str) -> dict[str, str]:
    """The settings variables of a benchmark warehouse (mirror source when ``mirror`` is given)."""
    env = {"WAREHOUSE_DIR": str(warehouse), "DAGSTER_HOME": str(warehouse / ".dagster")}
    if mirror is not None:
        env |= {"TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(mirror)}
    return env | extra


def process_env(settings_env: Mapping[str, str]) -> dict[str, str]:
    """This process's environment without the developer's settings variables, plus ``settings_env``."""
    base = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARS}
    return base | {"PYTHONUNBUFFERED": "1"} | dict(settings_env)


def settings_for(warehouse: Path, mirror: Path | None = None) -> Settings:
    return load_settings(warehouse_env(warehouse, mirror))


def mirror_listing(mirror: Path) -> list[str]:
    """Repo paths (``data/utilization/...``) of the mirror's utilization files, as a HuggingFace listing."""
    root = mirror / HF_MIRROR_PREFIX
    folder = root / UTILIZATION_DIR
    if not folder.is_dir():
        return []
    return sorted(p.relative_to(root).as_posix() for p in folder.rglob("*.csv") if p.is_file())


def land(warehouse: Path, mirror: Path, files: Sequence[UpstreamFile]) -> list[Path]:
    """Land ``files`` of ``mirror`` in ``warehouse`` (verified against MANIFEST.json; a mirror file is linked,
    not copied, so the mirror must outlive the warehouse)."""
    from pipelines.sample.source import trace_source
    from pipelines.sources.landing import land_files

    settings = settings_for(warehouse, mirror)
    result = land_files(settings, files, source=trace_source(settings))
    if result.errors:
        raise RuntimeError("set-up could not land:\n" + "\n".join(str(e) for e in result.errors))
    return [f.path for f in result.landed]


def landed_paths(warehouse: Path, files: Iterable[UpstreamFile]) -> list[Path]:
    settings = settings_for(warehouse)
    return [settings.landing_dir / f.mirror_path for f in files]


def reset(warehouse: Path) -> None:
    """Forget everything built from the landed files (lake, trace.duckdb, docs, reports), keep the input."""
    if not warehouse.is_dir():
        return
    for entry in warehouse.iterdir():
        if entry.name in KEPT_ON_RESET:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
