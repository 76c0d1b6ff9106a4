"""The HuggingFace dataset ``Qinghao/AcmeTrace``: listing its files and downloading one of them.

Listing uses ``huggingface_hub``'s ``HfApi.list_repo_tree`` (``GET /api/datasets/<repo>/tree/main/<folder>``,
recursive, paginated by the library) with ``endpoint=settings.hf_endpoint`` and ``token=settings.hf_token``.

Downloading — the choice and why. ``hf_hub_download(local_dir=…)`` was read (huggingface_hub 2.4,
``file_download._hf_hub_download_to_local_dir``) and rejected for the landing layer:

- it renames the file onto its final path itself, *before* the warehouse can check bytes/sha256 against
  the mirror manifest, so ``landing/`` could hold an unverified file; and it keeps its own metadata
  (``.cache/huggingface/``) inside ``local_dir``, i.e. inside the immutable landing tree;
- it does not return the revision or ETag (they sit in its metadata file), and its retry count and
  timeouts are process-wide constants read from the environment at import, so the fault tests could not
  set them per call; turning xet off is likewise only an import-time environment variable.

So this module resolves the URL with ``hf_hub_url`` and builds the request headers with
``build_hf_headers`` (``Authorization: Bearer <HF_TOKEN>``, the library's user agent), and the bytes are
fetched by :mod:`pipelines.sources.http_download` — the same resumable, retried, conditional path as the
GitHub files. ``X-Repo-Commit`` (revision) and ``X-Linked-Etag``/``ETag`` are read from the ``resolve``
response (also behind the Hub's redirect to its CDN). Xet is never used: the ``resolve`` URL serves the
whole file over plain HTTP, and no xet code path of huggingface_hub is invoked. httpx drops the
``Authorization`` header when a redirect leaves the Hub's host, and the token never enters a message.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from pipelines.families.upstream import ACME_HF_REPO, UTILIZATION_DIR
from pipelines.settings import Settings
from pipelines.sources import http_download

REPO_TYPE = "dataset"


def resolve_url(settings: Settings, repo_path: str) -> str:
    """``<HF_ENDPOINT>/datasets/Qinghao/AcmeTrace/resolve/main/<repo_path>``."""
    from huggingface_hub import hf_hub_url

    return hf_hub_url(ACME_HF_REPO, repo_path, repo_type=REPO_TYPE, endpoint=settings.hf_endpoint)


def request_headers(settings: Settings) -> dict[str, str]:
    """Headers for a Hub request: the token as ``Authorization: Bearer`` (huggingface_hub's default token
    when ``HF_TOKEN`` is unset) and the library's user agent. Never log these."""
    from huggingface_hub.utils import build_hf_headers

    return build_hf_headers(token=settings.hf_token, library_name="trace-warehouse")


def list_repo_paths(settings: Settings, folder: str = UTILIZATION_DIR) -> list[str]:
    """Every file under ``folder`` of the dataset repo (recursive), as repo paths, sorted."""
    from huggingface_hub import HfApi
    from huggingface_hub.hf_api import RepoFile

    api = HfApi(endpoint=settings.hf_endpoint, token=settings.hf_token, library_name="trace-warehouse")
    entries = api.list_repo_tree(ACME_HF_REPO, path_in_repo=folder, recursive=True, repo_type=REPO_TYPE)
    return sorted(e.path for e in entries if isinstance(e, RepoFile))


def download(
    settings: Settings,
    repo_path: str,
    dest: Path,
    *,
    part: Path | None = None,
    client: httpx.Client | None = None,
    previous: http_download.RemoteState | None = None,
    options: http_download.HttpOptions | None = None,
    progress: http_download.Progress | None = None,
    verify: http_download.Verify | None = None,
) -> http_download.DownloadResult:
    """Download one file of the dataset onto ``dest`` (resumable, conditional; see http_download)."""
    return http_download.download(
        resolve_url(settings, repo_path),
        dest,
        part=part,
        client=client,
        headers=request_headers(settings),
        previous=previous,
        options=options,
        progress=progress,
        verify=verify,
    )
