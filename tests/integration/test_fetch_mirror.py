"""Mirror and sample mode: copying a mirror folder into landing/, verified against its MANIFEST.json."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import types
from pathlib import Path

import pytest

from pipelines.sample.source import trace_source
from pipelines.settings import Settings, load_settings
from pipelines.sources import mirror_manifest as mm
from pipelines.sources.landing import LandingResult, land_files, list_utilization
from pipelines.sources.manifest import all_landed, read_landed
from pipelines.warehouse.raw_load import load_family
from tests.support.mirror_server import (
    BURSTGPT_1,
    GPU_UTIL,
    GPU_UTIL_PIECE,
    HELIOS,
    IPMI,
    KALOS_JOBS,
    LFS_POINTER,
    NODE_CPU_PIECES,
    ODD_METRIC,
    SEREN_JOBS,
    upstream_files,
    write_mirror,
    write_tiny_mirror,
)

LANDABLE = [KALOS_JOBS, SEREN_JOBS, BURSTGPT_1, HELIOS, GPU_UTIL, *NODE_CPU_PIECES, ODD_METRIC, IPMI]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def mirror(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    root = tmp_path / "mirror"
    return root, write_tiny_mirror(root)


@pytest.fixture
def settings(mirror: tuple[Path, dict[str, bytes]], tmp_path: Path) -> Settings:
    return load_settings(
        {"TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(mirror[0]), "WAREHOUSE_DIR": str(tmp_path / "wh")}
    )


def land(settings: Settings, paths: list[str]) -> LandingResult:
    return land_files(settings, upstream_files(paths), source=trace_source(settings))


def test_copies_every_file_and_writes_one_manifest_document_each(
    settings: Settings, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    root, files = mirror
    messages: list[str] = []
    result = land_files(
        settings, upstream_files(LANDABLE), progress=messages.append, source=trace_source(settings)
    )
    assert result.ok, result.errors
    assert len(messages) == len(LANDABLE)
    for landed in result.landed:
        mp = landed.mirror_path
        dest = settings.landing_dir / mp
        assert landed.path == dest and dest.read_bytes() == files[mp]
        assert (landed.bytes, landed.sha256, landed.changed) == (len(files[mp]), sha(files[mp]), True)
        assert landed.url == str(root / mp)
        assert landed.source_mtime_ns == (root / mp).stat().st_mtime_ns
        assert dest.is_symlink() and os.path.samefile(dest, root / mp)  # linked in place, not copied
        doc = json.loads((settings.manifest_dir / (mp + ".json")).read_text())
        assert doc["mirror_path"] == mp and doc["sha256"] == sha(files[mp]) and doc["bytes"] == len(files[mp])
        assert doc["family"] == landed.family and doc["fetched_at"].endswith("+00:00")
    by_path = {f.mirror_path: f for f in result.landed}
    assert (by_path[KALOS_JOBS].origin, by_path[KALOS_JOBS].real_lines) == ("mixed", [[2, 2]])
    assert by_path[GPU_UTIL].origin == "synthetic" and by_path[GPU_UTIL].family == "acme__gpu_metrics"
    assert by_path[HELIOS].unverified_layout is True
    assert by_path[HELIOS].note == "header assumed from the upstream notebook"
    assert by_path[SEREN_JOBS].unverified_layout is False and by_path[SEREN_JOBS].note is None
    assert all_landed(settings) == sorted(result.landed, key=lambda f: f.mirror_path)
    leftovers = [p for p in settings.landing_dir.rglob("*") if p.is_file() and ".partial" in p.parts]
    assert leftovers == []


def test_unchanged_mirror_file_is_not_copied_again(settings: Settings) -> None:
    first = land(settings, [KALOS_JOBS, GPU_UTIL])
    assert first.ok
    before = {f.mirror_path: (settings.landing_dir / f.mirror_path).stat() for f in first.landed}
    again = land(settings, [KALOS_JOBS, GPU_UTIL])
    assert again.ok, again.errors
    assert [f.changed for f in again.landed] == [False, False]
    for landed in again.landed:
        after = (settings.landing_dir / landed.mirror_path).stat()
        assert (after.st_ino, after.st_mtime_ns) == (
            before[landed.mirror_path].st_ino,
            before[landed.mirror_path].st_mtime_ns,
        )
        assert read_landed(settings, landed.mirror_path) == landed  # the document says "unchanged"
    assert [f.fetched_at for f in again.landed] == [f.fetched_at for f in first.landed]


def test_a_touched_mirror_file_is_copied_again(
    settings: Settings, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    root, _ = mirror
    assert land(settings, [KALOS_JOBS, GPU_UTIL]).ok
    st = (root / GPU_UTIL).stat()
    os.utime(root / GPU_UTIL, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    again = land(settings, [KALOS_JOBS, GPU_UTIL])
    assert {f.mirror_path: f.changed for f in again.landed} == {KALOS_JOBS: False, GPU_UTIL: True}


def test_a_deleted_landed_copy_is_restored(settings: Settings, mirror: tuple[Path, dict[str, bytes]]) -> None:
    assert land(settings, [SEREN_JOBS]).ok
    (settings.landing_dir / SEREN_JOBS).unlink()
    again = land(settings, [SEREN_JOBS])
    assert [f.changed for f in again.landed] == [True]
    assert (settings.landing_dir / SEREN_JOBS).read_bytes() == mirror[1][SEREN_JOBS]


def test_edited_mirror_file_that_no_longer_matches_its_manifest_is_a_clear_error(
    settings: Settings, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    root, files = mirror
    assert land(settings, [SEREN_JOBS]).ok
    edited = files[SEREN_JOBS].replace(b"u5907", b"u0000")
    (root / SEREN_JOBS).write_bytes(edited)
    result = land(settings, [SEREN_JOBS, KALOS_JOBS])
    assert len(result.errors) == 1
    message = str(result.errors[0])
    assert SEREN_JOBS in message and str(root / SEREN_JOBS) in message
    assert sha(edited) in message and sha(files[SEREN_JOBS]) in message and "MANIFEST.json" in message
    # what was landed and verified is still what the manifest records, and the edited file is not loaded
    assert read_landed(settings, SEREN_JOBS).sha256 == sha(files[SEREN_JOBS])
    assert [f.mirror_path for f in result.landed] == [KALOS_JOBS]
    loaded = load_family(settings, "acme__seren_jobs")
    assert [e.path for e in loaded.errors] == [str(settings.landing_dir / SEREN_JOBS)]
    assert "changed after it was landed" in str(loaded.errors[0]) and not loaded.results


def test_a_bad_file_never_reaches_a_fresh_landing_folder(
    settings: Settings, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    root, _ = mirror
    (root / GPU_UTIL).write_bytes(b"Time,x\n")
    result = land(settings, [GPU_UTIL])
    assert len(result.errors) == 1
    assert not (settings.landing_dir / GPU_UTIL).exists()
    assert read_landed(settings, GPU_UTIL) is None
    assert [p for p in settings.landing_dir.rglob("*") if p.is_file()] == []


def test_a_file_the_manifest_does_not_list_is_real(tmp_path: Path) -> None:
    root = tmp_path / "mirror"
    write_tiny_mirror(root, unlisted=[SEREN_JOBS])
    settings = load_settings(
        {"TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(root), "WAREHOUSE_DIR": str(tmp_path / "wh")}
    )
    result = land(settings, [SEREN_JOBS, GPU_UTIL])
    assert result.ok, result.errors
    origins = {f.mirror_path: (f.origin, f.real_lines) for f in result.landed}
    assert origins == {SEREN_JOBS: ("real", []), GPU_UTIL: ("synthetic", [])}


def test_published_hashes_do_not_apply_to_a_mirror(tmp_path: Path) -> None:
    """A user's own (unlisted) BurstGPT copy is not held to the published hash outside remote mode."""
    root = tmp_path / "mirror"
    write_tiny_mirror(root, unlisted=[BURSTGPT_1])
    settings = load_settings(
        {"TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(root), "WAREHOUSE_DIR": str(tmp_path / "wh")}
    )
    result = land(settings, [BURSTGPT_1])
    assert result.ok, result.errors
    assert result.landed[0].origin == "real"


def test_a_mirror_without_manifest_is_all_real(tmp_path: Path) -> None:
    root = tmp_path / "mirror"
    write_tiny_mirror(root)
    (root / mm.MANIFEST_NAME).unlink()
    settings = load_settings(
        {"TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(root), "WAREHOUSE_DIR": str(tmp_path / "wh")}
    )
    result = land(settings, [KALOS_JOBS, HELIOS])
    assert result.ok, result.errors
    assert {f.origin for f in result.landed} == {"real"}
    assert not any(f.unverified_layout for f in result.landed)


def test_missing_mirror_file_names_the_expected_path_and_the_others_land(
    settings: Settings, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    root, _ = mirror
    (root / HELIOS).unlink()
    result = land(settings, [KALOS_JOBS, HELIOS, GPU_UTIL])
    assert len(result.errors) == 1
    error = result.errors[0]
    assert error.mirror_path == HELIOS and str(root / HELIOS) in str(error)
    assert "not in the mirror" in str(error)
    assert sorted(f.mirror_path for f in result.landed) == sorted([KALOS_JOBS, GPU_UTIL])


def test_git_lfs_pointer_in_a_mirror_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "mirror"
    write_mirror(root, {BURSTGPT_1: LFS_POINTER}, unlisted=[BURSTGPT_1])
    settings = load_settings(
        {"TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(root), "WAREHOUSE_DIR": str(tmp_path / "wh")}
    )
    result = land(settings, [BURSTGPT_1])
    assert len(result.errors) == 1
    assert "Git LFS pointer" in str(result.errors[0]) and "release asset" in str(result.errors[0])
    assert not (settings.landing_dir / BURSTGPT_1).exists()


def test_a_broken_mirror_manifest_fails_every_file_clearly(
    settings: Settings, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    (mirror[0] / mm.MANIFEST_NAME).write_text("{not json", encoding="utf-8")
    result = land(settings, [KALOS_JOBS, GPU_UTIL])
    assert result.landed == [] and len(result.errors) == 2
    assert all("MANIFEST.json" in str(e) and "not valid JSON" in str(e) for e in result.errors)


def test_list_utilization_walks_the_mirror(settings: Settings) -> None:
    hf = "huggingface/datasets/Qinghao/AcmeTrace/"
    expected = [GPU_UTIL, GPU_UTIL_PIECE, *NODE_CPU_PIECES, ODD_METRIC, IPMI]
    assert list_utilization(settings, source=trace_source(settings)) == sorted(
        p.removeprefix(hf) for p in expected
    )


def test_list_utilization_of_a_mirror_without_utilization_is_empty(tmp_path: Path) -> None:
    root = tmp_path / "mirror"
    write_mirror(root, {KALOS_JOBS: b"job_id\n1\n"})
    settings = load_settings(
        {"TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(root), "WAREHOUSE_DIR": str(tmp_path / "wh")}
    )
    assert list_utilization(settings, source=trace_source(settings)) == []


def test_sample_mode_generates_the_mirror_once_then_lands_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The generator is another module's job: a stand-in with its signature proves the wiring only."""
    calls: list[Path] = []

    def generate_sample(out: Path, *, progress: object = None, **_: object) -> mm.MirrorManifest:
        calls.append(out)
        return write_mirror(out, {KALOS_JOBS: b"job_id\nsynthetic1\n"})

    fake = types.ModuleType("pipelines.sample")
    fake.generate_sample = generate_sample  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pipelines.sample", fake)
    settings = load_settings({"TRACE_SOURCE": "sample", "WAREHOUSE_DIR": str(tmp_path / "wh")})
    first = land(settings, [KALOS_JOBS])
    second = land(settings, [KALOS_JOBS])
    assert calls == [settings.sample_mirror_dir]
    assert first.ok and second.ok
    assert [f.changed for f in first.landed + second.landed] == [True, False]
    assert first.landed[0].origin == "synthetic"


def test_files_landed_at_once_are_told_and_listed_in_their_order(
    settings: Settings, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    root, _ = mirror
    (root / HELIOS).unlink()
    wanted = [GPU_UTIL, KALOS_JOBS, HELIOS, BURSTGPT_1, SEREN_JOBS]
    said: list[str] = []
    source = trace_source(settings)
    assert source.landing_workers == 2
    result = land_files(settings, upstream_files(wanted), said.append, source=source)
    assert [f.mirror_path for f in result.landed] == [GPU_UTIL, KALOS_JOBS, BURSTGPT_1, SEREN_JOBS]
    assert [e.mirror_path for e in result.errors] == [HELIOS]
    told = [next(p for p in wanted if p in message) for message in said]
    assert told == wanted, said
    assert said[2].startswith("FAILED ")
