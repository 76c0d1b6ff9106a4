"""The sample generator as a whole: determinism, MANIFEST.json, real lines, catalog coverage, re-runs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from pipelines.families.registry import fixed_files
from pipelines.families.upstream import HF_MIRROR_PREFIX, discover_utilization
from pipelines.sample import SampleError, generate_sample
from pipelines.sources.mirror_manifest import read

REAL = Path(__file__).resolve().parents[2] / "pipelines" / "sample" / "real"
REAL_SOURCES = {  # mirror file name → the real file whose data lines it carries
    "BurstGPT_1.csv": "burstgpt_1_first400.csv",
    "BurstGPT_without_fails_1.csv": "burstgpt_1_first400.csv",
    "trace_seren.csv": "acmetrace_seren_readme_rows.csv",
    "trace_kalos.csv": "acmetrace_kalos_readme_rows.csv",
    "cluster_summary.csv": "acmetrace_cluster_summary.csv",
}
OWN_FILES = {"MANIFEST.json", "README.txt"}


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sample")
    generate_sample(out)
    return out


def data_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).as_posix() not in OWN_FILES
    }


def manifest_doc(root: Path) -> dict:
    return json.loads((root / "MANIFEST.json").read_text())


def test_same_arguments_give_byte_identical_mirrors(mirror: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    generate_sample(again)
    assert (again / "MANIFEST.json").read_bytes() == (mirror / "MANIFEST.json").read_bytes()
    assert (again / "README.txt").read_bytes() == (mirror / "README.txt").read_bytes()
    assert data_files(again) == data_files(mirror)


def test_another_seed_changes_synthetic_rows_but_not_real_ones(mirror: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    manifest = generate_sample(other, seed=1, scale=0.0005)
    assert manifest.extra["generator"]["seed"] == 1
    seren = next(f.mirror_path for f in fixed_files() if f.file_name == "trace_seren.csv")
    a, b = (root / seren for root in (mirror, other))
    assert a.read_bytes() != b.read_bytes()
    assert a.read_bytes().splitlines()[:3] == b.read_bytes().splitlines()[:3]


def test_manifest_lists_every_file_with_matching_bytes_and_sha256(mirror: Path) -> None:
    manifest = read(mirror)
    assert manifest is not None
    files = data_files(mirror)
    assert set(manifest.files) == set(files)
    for path, data in files.items():
        entry = manifest.files[path]
        assert entry.bytes == len(data), path
        assert entry.sha256 == hashlib.sha256(data).hexdigest(), path
        assert entry.origin in ("real", "synthetic", "mixed")


def test_manifest_generator_object_and_origins(mirror: Path) -> None:
    doc = manifest_doc(mirror)
    generator = doc["generator"]
    assert {k: generator[k] for k in ("seed", "scale", "util_nodes", "util_days")} == {
        "seed": 0, "scale": 0.002, "util_nodes": 4, "util_days": 1}  # fmt: skip
    assert "synthetic" in generator["note"].lower()
    origins = {Path(p).name: e["origin"] for p, e in doc["files"].items()}
    assert origins["cluster_summary.csv"] == "real"
    assert {origins[name] for name in REAL_SOURCES if name != "cluster_summary.csv"} == {"mixed"}
    others = {o for name, o in origins.items() if name not in REAL_SOURCES}
    assert others == {"synthetic"}


def test_real_lines_are_byte_identical_to_the_shipped_real_rows(mirror: Path) -> None:
    manifest = read(mirror)
    assert manifest is not None
    checked = 0
    for path, entry in manifest.files.items():
        name = Path(path).name
        if entry.origin == "synthetic":
            assert name not in REAL_SOURCES
            continue
        real_data = (REAL / REAL_SOURCES[name]).read_bytes().splitlines(keepends=True)
        mine = (mirror / path).read_bytes().splitlines(keepends=True)
        if entry.origin == "real":
            assert mine == real_data
        else:
            assert mine[0] == real_data[0]  # same header
            expected = real_data[1:]
            if "without_fails" in name:
                expected = [line for line in expected if line.split(b",")[3] != b"0"]
            ((first, last),) = entry.real_lines
            assert first == 2 and mine[first - 1 : last] == expected
        checked += 1
    assert checked == 5


def test_every_catalog_fixed_file_exists(mirror: Path) -> None:
    for f in fixed_files():
        path = mirror / f.mirror_path
        assert path.is_file(), f.mirror_path
        assert path.read_bytes().count(b"\n") >= 1


def test_discover_utilization_picks_up_every_generated_utilization_file(mirror: Path) -> None:
    hf_root = mirror / HF_MIRROR_PREFIX
    generated = sorted(
        p.relative_to(hf_root).as_posix()
        for p in (hf_root / "data" / "utilization").rglob("*.csv")
        if p.parent.name != "ipmi"
    )
    discovery = discover_utilization(generated)
    assert discovery.skipped == ()
    assert sorted(f.repo_path for f in discovery.files) == generated
    assert all(f.documented for f in discovery.files)
    assert {(f.cluster, f.metric) for f in discovery.files} == {
        (c, m) for c in ("seren", "kalos") for m in {f.metric for f in discovery.files}
    }
    assert len({f.metric for f in discovery.files}) == 18


def test_readme_says_synthetic_and_lists_real_lines(mirror: Path) -> None:
    text = (mirror / "README.txt").read_text()
    assert text.startswith("*** SYNTHETIC DATA")
    assert "BurstGPT_1.csv: lines 2-401" in text
    assert "cluster_summary.csv: the whole file" in text


def test_rerun_with_other_arguments_removes_stale_files(tmp_path: Path) -> None:
    out = tmp_path / "mirror"
    generate_sample(out, scale=0.0001, util_days=2, util_nodes=2)
    pieces = sorted(p.name for p in out.rglob("*-2023-07-2*.csv"))
    assert "GPU_UTIL-2023-07-21.csv" in pieces
    (out / "my_own_download.csv").write_text("kept\n")
    messages: list[str] = []
    generate_sample(out, scale=0.0001, util_days=1, util_nodes=2, progress=messages.append)
    assert not list(out.rglob("*-2023-07-21.csv"))
    assert not list(out.rglob("*.sample-tmp"))
    assert (out / "my_own_download.csv").read_text() == "kept\n"
    assert set(data_files(out)) - {"my_own_download.csv"} == set(manifest_doc(out)["files"])
    assert len(messages) >= 40 and any("trace_seren.csv" in m for m in messages)


def _data_lines(path: Path) -> int:
    return len(path.read_bytes().splitlines()) - 1


def test_gpu_util_gets_its_own_window_and_other_metrics_keep_theirs(tmp_path: Path) -> None:
    out = tmp_path / "mirror"
    generate_sample(out, scale=0.0001, util_days=1, gpu_util_days=3, util_nodes=2)
    util = out / "huggingface/datasets/Qinghao/AcmeTrace/data/utilization"
    seren_pieces = sorted(p.name for p in (util / "seren").glob("GPU_UTIL-*.csv"))
    # +08:00 days from 2023-07-19 00:00 through 2023-07-22 00:00 (both ends included)
    assert seren_pieces == [f"GPU_UTIL-2023-07-{d}.csv" for d in (19, 20, 21, 22)]
    samples_1d, samples_3d = 86_400 // 15 + 1, 3 * 86_400 // 15 + 1
    duplicated = 3  # DUPLICATE_TIME_ROWS, inside every metric's window
    assert _data_lines(util / "kalos" / "GPU_UTIL.csv") == samples_3d + duplicated
    assert _data_lines(util / "kalos" / "SM_ACTIVE.csv") == samples_1d + duplicated
    assert sum(_data_lines(util / "seren" / name) for name in seren_pieces) == samples_3d + duplicated
    assert manifest_doc(out)["generator"]["gpu_util_days"] == 3
    # a shorter GPU_UTIL window still gets the duplicate Time rows (they sit in every file's window)
    generate_sample(out, scale=0.0001, util_days=2, gpu_util_days=1, util_nodes=2)
    assert _data_lines(util / "kalos" / "GPU_UTIL.csv") == samples_1d + duplicated
    assert _data_lines(util / "kalos" / "SM_ACTIVE.csv") == 2 * 86_400 // 15 + 1 + duplicated


@pytest.mark.parametrize(
    "kwargs",
    [{"scale": 0.0}, {"scale": 1.5}, {"util_nodes": 1}, {"util_days": 0}, {"gpu_util_days": 0}, {"seed": -1}],
)
def test_invalid_arguments_are_refused(tmp_path: Path, kwargs: dict) -> None:
    with pytest.raises(SampleError):
        generate_sample(tmp_path / "x", **kwargs)
    assert not (tmp_path / "x").exists()


def test_utilization_only_writes_just_those_files_byte_identical_to_the_whole_mirror(
    mirror: Path, tmp_path: Path
) -> None:
    """``--util-files``: the chosen metric files (a split metric as its pieces), the same bytes as in the whole
    mirror, nothing else but MANIFEST.json and README.txt; the manifest says which were asked for."""
    generate_sample(tmp_path, utilization_only=["kalos/GPU_UTIL", "seren/GPU_UTIL"])
    files = data_files(tmp_path)
    whole = data_files(mirror)
    kalos = (Path(HF_MIRROR_PREFIX) / "data/utilization/kalos/GPU_UTIL.csv").as_posix()
    seren = sorted(p for p in whole if "/seren/GPU_UTIL-" in p)  # Seren GPU_UTIL is split into pieces
    assert seren and sorted(files) == sorted([kalos, *seren])
    assert all(files[p] == whole[p] for p in files)
    manifest = read(tmp_path)
    assert manifest is not None and set(manifest.files) == set(files)
    assert manifest.extra["generator"]["utilization_only"] == ["seren/GPU_UTIL", "kalos/GPU_UTIL"]
    assert all(e.origin == "synthetic" for e in manifest.files.values())
    assert "SYNTHETIC" in (tmp_path / "README.txt").read_text()


def test_utilization_only_at_the_real_width(tmp_path: Path) -> None:
    """The real shape's width: 293 nodes × 8 GPUs + Time = 2,345 columns (Kalos GPU_UTIL, DATASETS.md)."""
    generate_sample(tmp_path, util_nodes=293, util_days=1, utilization_only=["kalos/GPU_UTIL"])
    (path,) = (tmp_path / HF_MIRROR_PREFIX / "data/utilization/kalos").glob("*.csv")
    with path.open("rb") as fh:
        header, first = fh.readline(), fh.readline()
    assert header.count(b",") + 1 == first.count(b",") + 1 == 2_345
    assert header.startswith(b"Time,10.130.") and first.startswith(b"2023-07-")


@pytest.mark.parametrize("name", ["kalos/GPU_UTILS", "helios/all", "GPU_UTIL"])
def test_unknown_utilization_file_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(SampleError, match="unknown utilization file"):
        generate_sample(tmp_path, utilization_only=[name])


def test_cli_util_files_and_real_shape_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``trace-warehouse sample --util-files``: only that file, said SYNTHETIC; a bad name exits 2 saying why.
    (``--real-shape`` sets 293 nodes × 14 days; the flags given beside it win: 4 nodes × 1 day here.)"""
    from pipelines.cli import main

    out = tmp_path / "m"
    args = ["sample", "--out", str(out), "--real-shape", "--util-nodes", "4", "--util-days", "1",
            "--gpu-util-days", "1", "--util-files", "kalos/XID_ERRORS"]  # fmt: skip
    assert main(args) == 0
    assert "SYNTHETIC" in capsys.readouterr().out
    assert list(data_files(out)) == [
        (Path(HF_MIRROR_PREFIX) / "data/utilization/kalos/XID_ERRORS.csv").as_posix()
    ]
    assert main(["sample", "--out", str(out), "--util-files", "kalos/NOPE"]) == 2
    assert "unknown utilization file 'kalos/NOPE'" in capsys.readouterr().err
