"""Remote mode over real HTTP on 127.0.0.1: a tiny mirror served the way GitHub and HuggingFace serve files.

Every claim is checked against the server's request log, not just against the outcome.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipelines.families.upstream import discover_utilization
from pipelines.sample.source import trace_source
from pipelines.settings import PROJECT_ROOT, Settings, load_settings
from pipelines.sources import mirror_manifest as mm
from pipelines.sources.http_download import HttpOptions
from pipelines.sources.landing import FetchError, LandingResult, land_files, list_utilization
from pipelines.sources.manifest import read_landed
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
    MirrorServer,
    upstream_files,
    write_mirror,
    write_tiny_mirror,
)

FAST = HttpOptions(attempts=3, timeout=2.0, backoff=0.01, max_backoff=0.05)
# A stalled answer never comes within the timeout (the server wakes its sleepers when it stops), and the
# timeout leaves an answering local server seconds, so a busy machine does not turn a good file into a timeout.
STALLED = 60.0
TIMING_OUT = HttpOptions(attempts=2, timeout=2.0, backoff=0.01)
TOKEN = "hf_TESTtokenDoNotLeak0123456789"
LANDABLE = [KALOS_JOBS, SEREN_JOBS, BURSTGPT_1, HELIOS, GPU_UTIL, *NODE_CPU_PIECES, ODD_METRIC, IPMI]

RAW = "/InternLM/AcmeTrace/master/"
RELEASE = "/HPMLL/BurstGPT/releases/download/"
RESOLVE = "/datasets/Qinghao/AcmeTrace/resolve/main/"


def url_path(mirror_path: str) -> str:
    """The URL path the server answers for a mirror path."""
    for prefix, url in (
        ("github/HPMLL/BurstGPT/releases/download/", RELEASE),
        ("github/InternLM/AcmeTrace/", RAW),
        ("huggingface/datasets/Qinghao/AcmeTrace/", RESOLVE),
    ):
        if mirror_path.startswith(prefix):
            return url + mirror_path.removeprefix(prefix)
    raise ValueError(mirror_path)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def mirror(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    root = tmp_path / "mirror"
    return root, write_tiny_mirror(root)


@pytest.fixture
def server(mirror: tuple[Path, dict[str, bytes]]) -> Iterator[MirrorServer]:
    with MirrorServer(mirror[0]) as srv:
        yield srv


@pytest.fixture
def settings(server: MirrorServer, tmp_path: Path) -> Settings:
    return load_settings(server.env(WAREHOUSE_DIR=str(tmp_path / "wh"), HF_TOKEN=TOKEN))


def land(settings: Settings, paths: list[str], options: HttpOptions = FAST, **kw: object) -> LandingResult:
    return land_files(settings, upstream_files(paths), source=trace_source(settings), options=options, **kw)  # type: ignore[arg-type]


def data_requests(server: MirrorServer, method: str | None = None) -> list[str]:
    """Requests for files (not the manifest, not the HF API)."""
    return [
        f"{r.method} {r.path}"
        for r in server.requests
        if r.path != "/MANIFEST.json" and not r.path.startswith("/api/") and method in (None, r.method)
    ]


def one_error(result: LandingResult) -> FetchError:
    assert len(result.errors) == 1, result.errors
    return result.errors[0]


# --- the happy path and conditional re-fetch ------------------------------------------------------------


def test_lands_every_file_with_bytes_hashes_origins_and_versions(
    settings: Settings, server: MirrorServer, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    files = mirror[1]
    result = land(settings, LANDABLE)
    assert result.ok, result.errors
    by_path = {f.mirror_path: f for f in result.landed}
    assert sorted(by_path) == sorted(LANDABLE)
    for mp in LANDABLE:
        landed = by_path[mp]
        assert (settings.landing_dir / mp).read_bytes() == files[mp]
        assert (landed.bytes, landed.sha256) == (len(files[mp]), sha(files[mp]))
        assert landed.etag == sha(files[mp]) and landed.changed
        assert landed.url == server.url + url_path(mp)
        assert read_landed(settings, mp) == landed
    assert by_path[KALOS_JOBS].origin == "mixed" and by_path[KALOS_JOBS].real_lines == [[2, 2]]
    assert by_path[BURSTGPT_1].origin == "synthetic"
    assert by_path[HELIOS].unverified_layout and by_path[HELIOS].note
    assert by_path[GPU_UTIL].revision == server.commit  # X-Repo-Commit of the HF resolve
    assert by_path[KALOS_JOBS].revision is None
    assert server.requests_to("/MANIFEST.json", "GET") != []
    # nothing half-written anywhere: no .part left, landed files read-only
    partial = settings.landing_dir / ".partial"
    assert not partial.exists() or not [p for p in partial.rglob("*") if p.is_file()]
    assert all(not (settings.landing_dir / mp).stat().st_mode & 0o222 for mp in LANDABLE)


def test_rerun_of_unchanged_files_makes_no_get(settings: Settings, server: MirrorServer) -> None:
    assert land(settings, LANDABLE).ok
    first = {mp: read_landed(settings, mp) for mp in LANDABLE}
    server.clear_log()
    again = land(settings, LANDABLE)
    assert again.ok, again.errors
    assert [f.changed for f in again.landed] == [False] * len(LANDABLE)
    assert data_requests(server, "GET") == []
    assert sorted(data_requests(server, "HEAD")) == sorted(f"HEAD {url_path(mp)}" for mp in LANDABLE)
    for landed in again.landed:  # the record keeps the original landing time and hash
        before = first[landed.mirror_path]
        assert before is not None
        assert (landed.fetched_at, landed.sha256) == (before.fetched_at, before.sha256)
        assert read_landed(settings, landed.mirror_path) == landed


def test_a_changed_file_is_fetched_again_and_only_that_one(
    settings: Settings, server: MirrorServer, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    root, files = mirror
    assert land(settings, [KALOS_JOBS, SEREN_JOBS]).ok
    files = {**files, SEREN_JOBS: files[SEREN_JOBS] + b"2,u1,1,1,8,Eval,FAILED,x,y,z,1,1,1\n"}
    write_mirror(root, files, origins={KALOS_JOBS: "mixed"}, real_lines={KALOS_JOBS: [[2, 2]]})
    server.clear_log()
    result = land(settings, [KALOS_JOBS, SEREN_JOBS])
    assert result.ok, result.errors
    assert {f.mirror_path: f.changed for f in result.landed} == {KALOS_JOBS: False, SEREN_JOBS: True}
    assert data_requests(server, "GET") == [f"GET {url_path(SEREN_JOBS)}"]
    assert (settings.landing_dir / SEREN_JOBS).read_bytes() == files[SEREN_JOBS]


# --- cut, truncated, resumed ----------------------------------------------------------------------------


def test_cut_transfer_resumes_with_a_range_request(
    settings: Settings, server: MirrorServer, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    body = mirror[1][BURSTGPT_1]
    path = url_path(BURSTGPT_1)
    server.cut_after(path, 100_000)
    result = land(settings, [BURSTGPT_1])
    assert result.ok, result.errors
    gets = server.requests_to(path, "GET")
    assert [r.range is None for r in gets] == [True, False]
    resumed_at = int(gets[1].range.removeprefix("bytes=").rstrip("-"))  # type: ignore[union-attr]
    assert 0 < resumed_at <= 100_000
    (landed,) = result.landed
    assert (settings.landing_dir / BURSTGPT_1).read_bytes() == body
    assert (landed.bytes, landed.sha256) == (len(body), sha(body))


def test_truncated_bodies_are_retried_and_resumed_each_time(
    settings: Settings, server: MirrorServer, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    body = mirror[1][BURSTGPT_1]
    path = url_path(BURSTGPT_1)
    server.cut_after(path, 60_000, times=2)  # the first GET and the first resume are both cut short
    result = land(settings, [BURSTGPT_1])
    assert result.ok, result.errors
    ranges = [r.range for r in server.requests_to(path, "GET")]
    assert len(ranges) == 3 and ranges[0] is None
    starts = [int(r.removeprefix("bytes=").rstrip("-")) for r in ranges[1:]]  # type: ignore[union-attr]
    assert 0 < starts[0] < starts[1] < len(body)  # each resume starts where the last one stopped
    assert result.landed[0].sha256 == sha(body)


def test_persistent_truncation_gives_up_with_a_clear_error(settings: Settings, server: MirrorServer) -> None:
    path = url_path(BURSTGPT_1)
    server.cut_after(path, 10, times=10)
    error = one_error(land(settings, [BURSTGPT_1]))
    assert BURSTGPT_1 in str(error) and server.url + path in str(error)
    assert "failed after 3 attempts" in str(error) and "transfer cut" in str(error)
    assert len(server.requests_to(path, "GET")) == 3
    assert not (settings.landing_dir / BURSTGPT_1).exists()


def test_interrupted_download_resumes_on_the_next_run(
    settings: Settings, server: MirrorServer, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    body = mirror[1][BURSTGPT_1]
    path = url_path(BURSTGPT_1)
    server.cut_after(path, 100_000)
    failed = land(settings, [BURSTGPT_1], options=HttpOptions(attempts=1, timeout=2.0))
    assert not failed.ok
    assert not (settings.landing_dir / BURSTGPT_1).exists()  # never a partial file in landing/
    part = settings.landing_dir / ".partial" / (BURSTGPT_1 + ".part")
    kept = part.stat().st_size
    assert 0 < kept <= 100_000
    server.clear_log()
    result = land(settings, [BURSTGPT_1])
    assert result.ok, result.errors
    assert [r.range for r in server.requests_to(path, "GET")] == [f"bytes={kept}-"]
    assert (settings.landing_dir / BURSTGPT_1).read_bytes() == body
    assert not part.exists()


def test_a_partial_download_of_an_older_version_is_restarted_from_zero(
    settings: Settings, server: MirrorServer, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    root, files = mirror
    path = url_path(BURSTGPT_1)
    server.cut_after(path, 100_000)
    assert not land(settings, [BURSTGPT_1], options=HttpOptions(attempts=1)).ok
    new_body = files[BURSTGPT_1].replace(b"ChatGPT", b"GPT-4o!")  # same size, other bytes
    write_mirror(root, {**files, BURSTGPT_1: new_body})
    server.clear_log()
    result = land(settings, [BURSTGPT_1])
    assert result.ok, result.errors
    ranges = [r.range for r in server.requests_to(path, "GET")]
    assert ranges[0] is not None and ranges[-1] is None  # tried to resume, saw another ETag, restarted
    assert (settings.landing_dir / BURSTGPT_1).read_bytes() == new_body


# --- HTTP errors ----------------------------------------------------------------------------------------


def test_404_is_a_clear_error_and_the_other_files_still_land(
    settings: Settings, server: MirrorServer
) -> None:
    server.not_found(url_path(HELIOS))
    result = land(settings, [KALOS_JOBS, HELIOS, GPU_UTIL])
    error = one_error(result)
    assert error.mirror_path == HELIOS
    assert "not found (HTTP 404" in str(error) and server.url + url_path(HELIOS) in str(error)
    assert sorted(f.mirror_path for f in result.landed) == sorted([KALOS_JOBS, GPU_UTIL])
    assert len(server.requests_to(url_path(HELIOS))) == 1  # a 404 is not retried
    assert not (settings.landing_dir / HELIOS).exists()


def test_403_fails_at_once(settings: Settings, server: MirrorServer) -> None:
    server.fail_times(url_path(SEREN_JOBS), 403, 5)
    error = one_error(land(settings, [SEREN_JOBS]))
    assert "access denied (HTTP 403" in str(error)
    assert len(server.requests_to(url_path(SEREN_JOBS))) == 1


def test_500_twice_then_ok_lands(settings: Settings, server: MirrorServer) -> None:
    server.fail_times(url_path(KALOS_JOBS), 500, 2)
    result = land(settings, [KALOS_JOBS])
    assert result.ok, result.errors
    assert len(server.requests_to(url_path(KALOS_JOBS), "GET")) == 3


def test_500_every_time_gives_up_after_the_attempts(settings: Settings, server: MirrorServer) -> None:
    server.fail_times(url_path(KALOS_JOBS), 503, 100)
    error = one_error(land(settings, [KALOS_JOBS]))
    assert "failed after 3 attempts" in str(error) and "HTTP 503" in str(error)
    assert len(server.requests_to(url_path(KALOS_JOBS), "GET")) == 3


def test_timeout_is_retried_then_a_clear_error(settings: Settings, server: MirrorServer) -> None:
    server.delay(url_path(SEREN_JOBS), STALLED)
    result = land(settings, [SEREN_JOBS, KALOS_JOBS], options=TIMING_OUT)
    error = one_error(result)
    assert error.mirror_path == SEREN_JOBS
    assert "failed after 2 attempts" in str(error) and "Timeout" in str(error)
    assert len(server.requests_to(url_path(SEREN_JOBS), "GET")) == 2
    assert [f.mirror_path for f in result.landed] == [KALOS_JOBS]


def test_a_slow_first_answer_is_retried_and_lands(settings: Settings, server: MirrorServer) -> None:
    server.delay(url_path(SEREN_JOBS), STALLED, times=1)
    result = land(settings, [SEREN_JOBS], options=TIMING_OUT)
    assert result.ok, result.errors
    assert len(server.requests_to(url_path(SEREN_JOBS), "GET")) == 2


# --- verification ---------------------------------------------------------------------------------------


def test_wrong_checksum_names_both_hashes_and_lands_nothing(
    settings: Settings, server: MirrorServer, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    tampered = b"job_id,user\nx,y\n"
    server.override_body(url_path(KALOS_JOBS), tampered)
    error = one_error(land(settings, [KALOS_JOBS]))
    assert sha(tampered) in str(error) and sha(mirror[1][KALOS_JOBS]) in str(error)
    assert "MANIFEST.json" in str(error) and KALOS_JOBS in str(error)
    assert not (settings.landing_dir / KALOS_JOBS).exists()
    assert not [p for p in (settings.landing_dir / ".partial").rglob("*") if p.is_file()]
    assert read_landed(settings, KALOS_JOBS) is None


def test_git_lfs_pointer_is_refused(settings: Settings, server: MirrorServer, tmp_path: Path) -> None:
    server.override_body(url_path(BURSTGPT_1), LFS_POINTER)
    error = one_error(land(settings, [BURSTGPT_1]))
    assert "Git LFS pointer" in str(error) and "release asset" in str(error)
    assert not (settings.landing_dir / BURSTGPT_1).exists()


def test_published_hash_applies_to_a_file_the_mirror_manifest_does_not_list(tmp_path: Path) -> None:
    root = tmp_path / "mirror"
    files = write_tiny_mirror(root, unlisted=[BURSTGPT_1])
    with MirrorServer(root) as srv:
        settings = load_settings(srv.env(WAREHOUSE_DIR=str(tmp_path / "wh")))
        result = land(settings, [BURSTGPT_1, KALOS_JOBS])
    error = one_error(result)
    published = "4bb3783693d0a435686fbfc885615d2349bd067239079fa4b749f2e679e12122"
    assert error.mirror_path == BURSTGPT_1
    assert published in str(error) and sha(files[BURSTGPT_1]) in str(error)
    assert "52283111" in str(error) and "published" in str(error)
    assert not (settings.landing_dir / BURSTGPT_1).exists()


def test_no_manifest_upstream_means_real_files_checked_against_published_hashes(tmp_path: Path) -> None:
    """As on real GitHub: /MANIFEST.json is 404, every file is real, published sizes/hashes apply."""
    summary_mp = "github/InternLM/AcmeTrace/data/cluster_summary.csv"
    real_summary = (PROJECT_ROOT / "pipelines/sample/real/acmetrace_cluster_summary.csv").read_bytes()
    root = tmp_path / "mirror"
    write_mirror(root, {summary_mp: real_summary, KALOS_JOBS: b"job_id\nabc\n"})
    (root / mm.MANIFEST_NAME).unlink()
    with MirrorServer(root) as srv:
        settings = load_settings(srv.env(WAREHOUSE_DIR=str(tmp_path / "wh")))
        result = land(settings, [summary_mp, KALOS_JOBS])
        assert [r.method for r in srv.requests_to("/MANIFEST.json")] == ["GET"]
    assert result.ok, result.errors
    assert {f.origin for f in result.landed} == {"real"}
    assert all(f.real_lines == [] for f in result.landed)


# --- HuggingFace ----------------------------------------------------------------------------------------


def test_hf_listing_discovers_utilization_files_and_one_downloads(
    settings: Settings, server: MirrorServer, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    server.tree_page_size = 3  # force huggingface_hub to follow the Link header
    listing = list_utilization(settings, source=trace_source(settings))
    hf = "huggingface/datasets/Qinghao/AcmeTrace/"
    expected = [GPU_UTIL, GPU_UTIL_PIECE, *NODE_CPU_PIECES, ODD_METRIC, IPMI]
    assert listing == sorted(p.removeprefix(hf) for p in expected)
    tree_calls = server.requests_to("/api/datasets/Qinghao/AcmeTrace/tree/main/data/utilization", "GET")
    assert len(tree_calls) > 1 and "recursive=true" in tree_calls[0].query
    found = discover_utilization(listing)
    assert [f.mirror_path for f in found.files] == [GPU_UTIL, *NODE_CPU_PIECES, ODD_METRIC]
    assert [p for p, _ in found.skipped] == [GPU_UTIL_PIECE.removeprefix(hf)]
    assert [f.documented for f in found.files] == [True, True, True, False]
    result = land_files(settings, [found.files[0]], source=trace_source(settings), options=FAST)
    assert result.ok, result.errors
    (landed,) = result.landed
    assert landed.revision == server.commit and landed.sha256 == sha(mirror[1][GPU_UTIL])
    assert (settings.landing_dir / GPU_UTIL).read_bytes() == mirror[1][GPU_UTIL]


def test_hf_lfs_redirect_to_a_cdn_is_followed_and_still_conditional(
    tmp_path: Path, mirror: tuple[Path, dict[str, bytes]]
) -> None:
    root, files = mirror
    with MirrorServer(root, lfs_redirect=True) as srv:
        settings = load_settings(srv.env(WAREHOUSE_DIR=str(tmp_path / "wh")))
        cdn = "/cdn/" + GPU_UTIL
        srv.cut_after(cdn, 40)
        result = land(settings, [GPU_UTIL])
        assert result.ok, result.errors
        (landed,) = result.landed
        assert landed.etag == sha(files[GPU_UTIL])  # X-Linked-Etag, not the CDN's own ETag
        assert landed.revision == srv.commit
        assert [r.range for r in srv.requests_to(cdn, "GET")] == [None, "bytes=40-"]
        srv.clear_log()
        again = land(settings, [GPU_UTIL])
        assert [f.changed for f in again.landed] == [False]
        assert data_requests(srv, "GET") == []


def test_hf_token_is_sent_as_a_header_and_never_shown(
    settings: Settings, server: MirrorServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    messages: list[str] = []
    server.not_found(url_path(HELIOS))
    server.fail_times(url_path(GPU_UTIL), 500, 1)
    list_utilization(settings, source=trace_source(settings))
    result = land(settings, [KALOS_JOBS, GPU_UTIL, HELIOS], progress=messages.append)
    assert len(result.errors) == 1
    hf_requests = [r for r in server.requests if r.path.startswith(("/api/", RESOLVE))]
    gh_requests = [r for r in server.requests if r.path.startswith(RAW)]
    assert hf_requests and gh_requests
    assert all(r.headers.get("authorization") == f"Bearer {TOKEN}" for r in hf_requests)
    assert all("authorization" not in r.headers for r in gh_requests)  # the token goes to the Hub only
    shown = [str(e) for e in result.errors] + messages + [caplog.text, repr(settings)]
    shown += [repr(f) for f in result.landed] + [(settings.manifest_dir / (GPU_UTIL + ".json")).read_text()]
    assert not [s for s in shown if TOKEN in s]


def test_hf_listing_failure_is_a_clear_error_without_the_token(
    settings: Settings, server: MirrorServer
) -> None:
    server.not_found("/api/datasets/Qinghao/AcmeTrace/tree/main/data/utilization")
    with pytest.raises(FetchError) as caught:
        list_utilization(settings, source=trace_source(settings))
    message = str(caught.value)
    assert "huggingface/datasets/Qinghao/AcmeTrace/data/utilization/" in message
    assert f"{server.url}/api/datasets/Qinghao/AcmeTrace/tree/main/data/utilization" in message
    assert "listing failed" in message and TOKEN not in message
