"""The catalog: utilization discovery from a listing, and where each upstream file lives."""

from __future__ import annotations

import pytest

from pipelines.families import registry
from pipelines.families.registry import files_for, fixed_files
from pipelines.families.upstream import UpstreamFile, discover_utilization
from pipelines.settings import load_settings
from pipelines.sources.huggingface import resolve_url

U = "data/utilization"


def _paths(files: tuple[UpstreamFile, ...]) -> list[str]:
    return [f.repo_path for f in files]


def test_whole_file_is_preferred_and_its_pieces_are_reported_as_shadowed() -> None:
    listing = [
        f"{U}/kalos/GPU_UTIL.csv",
        f"{U}/kalos/GPU_UTIL-2023-07-01.csv",
        f"{U}/kalos/GPU_UTIL-2023-07-02.csv",
    ]
    d = discover_utilization(listing)
    assert _paths(d.files) == [f"{U}/kalos/GPU_UTIL.csv"]
    assert [p for p, _ in d.skipped] == [
        f"{U}/kalos/GPU_UTIL-2023-07-01.csv",
        f"{U}/kalos/GPU_UTIL-2023-07-02.csv",
    ]
    assert all("shadowed by data/utilization/kalos/GPU_UTIL.csv" in why for _, why in d.skipped)


def test_pieces_are_taken_in_sorted_order_when_there_is_no_whole_file() -> None:
    listing = [
        f"{U}/seren/NODE_CPU_UTILIZATION-2023-07-02.csv",
        f"{U}/seren/NODE_CPU_UTILIZATION-2023-07-01.csv",
        f"{U}/seren/NODE_CPU_UTILIZATION-2023-07-02.csv",  # duplicates in a listing are harmless
    ]
    d = discover_utilization(listing)
    assert _paths(d.files) == sorted(set(listing))
    assert d.skipped == ()
    assert {(f.cluster, f.metric, f.family) for f in d.files} == {
        ("seren", "NODE_CPU_UTILIZATION", "acme__node_metrics")
    }


def test_metric_families_and_documented_flag() -> None:
    d = discover_utilization(
        [f"{U}/seren/GPU_UTIL.csv", f"{U}/kalos/NODE_IB_SEND.csv", f"{U}/seren/ODD_METRIC.csv"]
    )
    by_metric = {f.metric: f for f in d.files}
    assert by_metric["GPU_UTIL"].family == "acme__gpu_metrics" and by_metric["GPU_UTIL"].documented
    assert by_metric["NODE_IB_SEND"].family == "acme__node_metrics" and by_metric["NODE_IB_SEND"].documented
    assert by_metric["ODD_METRIC"].documented is False  # unknown metric: fetched, but flagged
    assert by_metric["ODD_METRIC"].family == "acme__gpu_metrics"


def test_every_utilization_file_falls_in_one_of_its_familys_partitions() -> None:
    from pipelines.families.upstream import file_partitions

    d = discover_utilization(
        [
            f"{U}/kalos/GPU_UTIL-2023-07-01.csv",
            f"{U}/kalos/GPU_UTIL-2023-07-02.csv",
            f"{U}/seren/NODE_IB_SEND.csv",
            f"{U}/seren/ODD_METRIC.csv",
        ]
    )
    assert [(f.family, f.partition) for f in d.files] == [
        ("acme__gpu_metrics", "kalos/GPU_UTIL"),  # the pieces of a split metric share its partition
        ("acme__gpu_metrics", "kalos/GPU_UTIL"),
        ("acme__node_metrics", "seren/NODE_IB_SEND"),
        ("acme__gpu_metrics", "seren/other"),  # a metric DATASETS.md does not list
    ]
    assert all(f.partition in file_partitions(f.family) for f in d.files)
    gpu, node = file_partitions("acme__gpu_metrics"), file_partitions("acme__node_metrics")
    assert len(gpu) == 2 * 15 and len(node) == 2 * 5
    assert set(gpu) & set(node) == {"seren/other", "kalos/other"}  # each family its own undocumented ones
    assert all(f.partition is None for f in fixed_files())  # only utilization files are partitioned


def test_non_metric_paths_are_ignored() -> None:
    d = discover_utilization([f"{U}/ipmi/GPU_AB_Power.csv", f"{U}/README.md", f"{U}/helios/GPU_UTIL.csv"])
    assert d.files == () and d.skipped == ()


def test_stems_are_unique_within_a_family() -> None:
    d = discover_utilization([f"{U}/seren/GPU_UTIL.csv", f"{U}/kalos/GPU_UTIL.csv"])
    assert sorted(f.stem for f in d.files) == ["kalos-GPU_UTIL", "seren-GPU_UTIL"]


@pytest.mark.parametrize(
    ("repo_path", "url", "mirror_path"),
    [
        (
            "data/job_trace/trace_seren.csv",
            "http://gh-raw.test/InternLM/AcmeTrace/master/data/job_trace/trace_seren.csv",
            "github/InternLM/AcmeTrace/data/job_trace/trace_seren.csv",
        ),
        (
            "v1.1/BurstGPT_1.csv",
            "http://gh.test/HPMLL/BurstGPT/releases/download/v1.1/BurstGPT_1.csv",
            "github/HPMLL/BurstGPT/releases/download/v1.1/BurstGPT_1.csv",
        ),
        (
            "data/job_trace/trace_previous_work/helios_trace.csv",
            "http://hf.test/datasets/Qinghao/AcmeTrace/resolve/main/data/job_trace/trace_previous_work/helios_trace.csv",
            "huggingface/datasets/Qinghao/AcmeTrace/data/job_trace/trace_previous_work/helios_trace.csv",
        ),
    ],
)
def test_url_and_mirror_path_of_each_host(repo_path: str, url: str, mirror_path: str) -> None:
    settings = load_settings(
        {
            "TRACE_SOURCE": "remote",
            "TRACE_GITHUB_RAW_URL": "http://gh-raw.test/",
            "TRACE_GITHUB_URL": "http://gh.test",
            "HF_ENDPOINT": "http://hf.test",
        }
    )
    (f,) = [f for f in fixed_files() if f.repo_path == repo_path]
    assert f.url(settings) == url
    assert f.mirror_path == mirror_path
    if f.host == "huggingface":  # the landing layer resolves HF URLs with huggingface_hub: same address
        assert resolve_url(settings, f.repo_path) == url


def test_default_endpoints_are_the_real_upstreams() -> None:
    settings = load_settings({"TRACE_SOURCE": "remote"})
    urls = {f.host: f.url(settings) for f in fixed_files()}
    assert urls["github_raw"].startswith("https://raw.githubusercontent.com/InternLM/AcmeTrace/master/data/")
    assert urls["github_release"].startswith("https://github.com/HPMLL/BurstGPT/releases/download/v")
    assert urls["huggingface"].startswith(
        "https://huggingface.co/datasets/Qinghao/AcmeTrace/resolve/main/data/"
    )


def test_discovered_utilization_files_live_on_huggingface() -> None:
    (f,) = discover_utilization([f"{U}/kalos/GPU_UTIL.csv"]).files
    assert f.host == "huggingface"
    assert f.mirror_path == "huggingface/datasets/Qinghao/AcmeTrace/data/utilization/kalos/GPU_UTIL.csv"


def test_fixed_files_have_unique_mirror_paths_and_known_families() -> None:
    paths = [f.mirror_path for f in fixed_files()]
    assert len(paths) == len(set(paths))
    assert all(f.family in registry.family_keys() for f in fixed_files())


def test_published_checksums_are_well_formed() -> None:
    published = [f for f in fixed_files() if f.published_sha256]
    assert {f.file_name for f in published} >= {"BurstGPT_1.csv", "cluster_summary.csv"}
    assert all(len(f.published_sha256 or "") == 64 and f.published_bytes for f in published)


def test_files_for_mixes_fixed_files_and_the_listing() -> None:
    listing = [f"{U}/kalos/GPU_UTIL.csv", f"{U}/seren/NODE_CPU_UTILIZATION.csv"]
    files = files_for(["acme__kalos_jobs", "acme__gpu_metrics"], listing)
    assert [f.repo_path for f in files] == ["data/job_trace/trace_kalos.csv", f"{U}/kalos/GPU_UTIL.csv"]
    assert files_for(["burstgpt__requests"]) == [f for f in fixed_files() if f.family == "burstgpt__requests"]


def test_unknown_family_is_a_clear_error() -> None:
    with pytest.raises(KeyError, match="unknown file family 'acme__nope'"):
        registry.family("acme__nope")
