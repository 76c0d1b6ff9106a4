"""Data Docs: a Great Expectations filesystem site at ``$WAREHOUSE_DIR/docs/gx/``.

Validation runs on what changed (the changed units, a changed partition, or the whole family); for the docs
the results of one (family, frame) in a run are summed into one GX validation result — counts add up, with
the stored counts of the units that did not change, sample rows are the first ones found — so a family has
one page per frame and run, rendered once, and only for frames that were validated again.

The results live in a file-backed GX context under ``$WAREHOUSE_DIR/docs/gx-context/`` whose site writes
to ``docs/gx/``. A family's check ``record``s its results (and a suite page when the suite changed) and
queues their pages; ``render`` builds the queued pages and the index once per run (the ``docs/gx`` asset;
the docs server renders what is still queued when a page is requested). One family's run never erases
another's; the last ``KEEP_RUNS`` runs of each page are kept; a file lock serializes processes.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock

from expectations.rules import Rule
from pipelines.atomic_write import write_json
from pipelines.settings import Settings

if TYPE_CHECKING:
    from great_expectations.core import ExpectationSuiteValidationResult

SITE_NAME = "trace_warehouse"
KEEP_RUNS = 3
PARTIAL_ROWS = 20
_DROPPED_KEYS = ("unexpected_list", "unexpected_index_list", "unexpected_index_query")


def site_dir(settings: Settings) -> Path:
    return settings.docs_dir / "gx"


def context_dir(settings: Settings) -> Path:
    return settings.docs_dir / "gx-context"


def index_url(settings: Settings) -> str:
    return (site_dir(settings) / "index.html").as_uri()


@dataclass
class _Merged:
    """Running sums of one expectation's results over the batches of a frame."""

    config: Any  # ExpectationConfiguration of the first batch
    threshold: float
    element_count: int = 0
    unexpected_count: int = 0
    missing_count: int = 0
    index_columns: list[str] = field(default_factory=list)
    partial_list: list[Any] = field(default_factory=list)
    partial_index_list: list[Any] = field(default_factory=list)
    partial_counts: Counter[str] = field(default_factory=Counter)
    exception: dict[str, Any] | None = None

    def add_counts(self, element_count: int, unexpected_count: int) -> None:
        """A reused stored result: its counts only (its sample rows stay on the earlier page)."""
        self.element_count += element_count
        self.unexpected_count += unexpected_count

    def add(self, result: Any) -> None:
        r = dict(result.result or {})
        self.element_count += int(r.get("element_count") or 0)
        self.unexpected_count += int(r.get("unexpected_count") or 0)
        self.missing_count += int(r.get("missing_count") or 0)
        self.index_columns = list(r.get("unexpected_index_column_names") or self.index_columns)
        room = PARTIAL_ROWS - len(self.partial_list)
        self.partial_list += list(r.get("partial_unexpected_list") or [])[: max(room, 0)]
        room = PARTIAL_ROWS - len(self.partial_index_list)
        self.partial_index_list += list(r.get("partial_unexpected_index_list") or [])[: max(room, 0)]
        for item in r.get("partial_unexpected_counts") or []:
            self.partial_counts[str(item.get("value"))] += int(item.get("count") or 0)
        if result.exception_info and result.exception_info.get("raised_exception") and self.exception is None:
            self.exception = dict(result.exception_info)

    def to_result(self) -> Any:
        from great_expectations.core import ExpectationValidationResult

        nonmissing = self.element_count - self.missing_count
        rate = self.unexpected_count / nonmissing if nonmissing > 0 else 0.0
        result: dict[str, Any] = {
            "element_count": self.element_count,
            "unexpected_count": self.unexpected_count,
            "unexpected_percent": 100.0 * rate,
            "unexpected_percent_nonmissing": 100.0 * rate,
            "unexpected_percent_total": (
                100.0 * self.unexpected_count / self.element_count if self.element_count else 0.0
            ),
            "missing_count": self.missing_count,
            "missing_percent": 100.0 * self.missing_count / self.element_count if self.element_count else 0.0,
            "partial_unexpected_list": self.partial_list,
            "partial_unexpected_index_list": self.partial_index_list,
            "unexpected_index_column_names": self.index_columns,
        }
        if self.partial_counts:
            result["partial_unexpected_counts"] = [
                {"value": v, "count": n} for v, n in self.partial_counts.most_common(PARTIAL_ROWS)
            ]
        exception = self.exception or {
            "raised_exception": False,
            "exception_message": None,
            "exception_traceback": None,
        }
        success = self.exception is None and rate <= self.threshold
        return ExpectationValidationResult(
            success=success, expectation_config=self.config, result=result, exception_info=exception
        )


@dataclass
class DocsCollector:
    """Sums the batch results of each (family, frame) into one validation result for the docs."""

    family: str
    pages: dict[str, dict[str, _Merged]] = field(default_factory=dict)  # page suite → rule → sums
    rules: dict[str, list[Rule]] = field(default_factory=dict)
    batches: Counter[str] = field(default_factory=Counter)
    meta: dict[str, dict[str, Any]] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)  # page suite → suite version

    def page_name(self, frame: str) -> str:
        return f"{self.family}.{frame}"

    def add(
        self,
        frame: str,
        rules: Sequence[Rule],
        result: ExpectationSuiteValidationResult,
        version: str = "",
        new_batch: bool = True,
    ) -> None:
        """Merge one GX result into the frame's page (``new_batch`` False: more rules of a batch counted)."""
        page = self.page_name(frame)
        self.versions[page] = version
        merged = self.pages.setdefault(page, {})
        known = self.rules.setdefault(page, [])
        by_name = {r.name: r for r in rules}
        for r in result.results:
            name = str(r.expectation_config.meta.get("rule"))
            if name not in merged:
                merged[name] = _Merged(r.expectation_config, by_name[name].threshold)
                known.append(by_name[name])
            merged[name].add(r)
        self.batches[page] += new_batch
        self.meta.setdefault(page, dict(result.meta or {}))

    def add_counts(self, frame: str, rule: str, element_count: int, unexpected_count: int) -> None:
        """Count a reused result of ``rule`` on the page of ``frame``, if that page is built this run."""
        merged = self.pages.get(self.page_name(frame), {}).get(rule)
        if merged is not None:
            merged.add_counts(element_count, unexpected_count)

    def results(
        self, run_time: dt.datetime
    ) -> list[tuple[str, list[Rule], ExpectationSuiteValidationResult]]:
        from great_expectations.core import ExpectationSuiteValidationResult
        from great_expectations.core.run_identifier import RunIdentifier

        out = []
        for page, merged in self.pages.items():
            results = [m.to_result() for m in merged.values()]
            ok = sum(1 for r in results if r.success)
            meta = dict(self.meta[page])
            for key in ("validation_id", "checkpoint_id"):
                meta.pop(key, None)
            run_id = RunIdentifier(run_name=self.family, run_time=run_time)
            frame = page.removeprefix(f"{self.family}.")
            meta.update(
                run_id=run_id,
                validation_time=run_time.strftime("%Y%m%dT%H%M%S.%fZ"),
                batch_parameters={"family": self.family, "frame": frame, "batches": self.batches[page]},
                batch_spec={
                    "data_asset_name": f"raw.{self.family} ({frame} frame)",
                    "batches": self.batches[page],
                },
                batch_markers={},
                expectation_suite_name=page,
            )
            suite_result = ExpectationSuiteValidationResult(
                success=ok == len(results),
                results=results,
                suite_name=page,
                statistics={
                    "evaluated_expectations": len(results),
                    "successful_expectations": ok,
                    "unsuccessful_expectations": len(results) - ok,
                    "success_percent": 100.0 * ok / len(results) if results else 100.0,
                },
                meta=meta,
            )
            out.append((page, self.rules[page], suite_result))
        return out


_contexts: dict[Path, Any] = {}


def _file_context(settings: Settings) -> Any:
    """The file-backed GX context of the site (one per process and docs folder: creating it reads its
    config and stores, a quarter of a second)."""
    root = context_dir(settings)
    cached = _contexts.get(root)
    if cached is not None and (root / "gx" / "great_expectations.yml").exists():
        return cached
    import great_expectations as gx

    root.mkdir(parents=True, exist_ok=True)
    ctx = gx.get_context(mode="file", project_root_dir=str(root))
    site: dict[str, Any] = {
        "class_name": "SiteBuilder",
        "show_how_to_buttons": False,
        # relative to the context's gx/ folder: docs/gx-context/gx/../../gx = docs/gx
        "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": "../../gx/"},
        "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
    }
    sites = dict(ctx.config.data_docs_sites or {})
    if sites.get(SITE_NAME) != site or set(sites) != {SITE_NAME}:
        for name in sites:
            ctx.delete_data_docs_site(name)
        ctx.add_data_docs_site(SITE_NAME, site)  # type: ignore[arg-type]
    _contexts[root] = ctx
    return ctx


def _suite_versions(settings: Settings) -> dict[str, str]:
    path = context_dir(settings) / "suite_versions.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _prune(ctx: Any, settings: Settings, suite_name: str) -> None:
    """Keep the last KEEP_RUNS results (and pages) of one suite."""
    from great_expectations.data_context.store.tuple_store_backend import TupleFilesystemStoreBackend
    from great_expectations.data_context.types.resource_identifiers import ValidationResultIdentifier

    store = ctx.validation_results_store
    keys = [
        k
        for k in store.list_keys()
        if isinstance(k, ValidationResultIdentifier) and k.expectation_suite_identifier.name == suite_name
    ]
    keys.sort(key=lambda k: k.run_id.run_time, reverse=True)
    pages = TupleFilesystemStoreBackend(
        base_directory=str(site_dir(settings)),
        filepath_prefix="validations",
        filepath_suffix=".html",
        suppress_store_backend_id=True,
    )
    for old in keys[KEEP_RUNS:]:
        store.remove_key(old)
        pages.remove_key(old.to_tuple())


@dataclass
class Published:
    index: str
    pages: dict[str, str]


def _pending_path(settings: Settings) -> Path:
    return context_dir(settings) / "pending.json"


def has_queued_pages(settings: Settings) -> bool:
    """Whether checks recorded results whose pages ``render`` has not built yet."""
    return _pending_path(settings).exists()


def _lock(settings: Settings) -> FileLock:
    context_dir(settings).mkdir(parents=True, exist_ok=True)
    return FileLock(str(context_dir(settings) / ".publish.lock"))


def record(settings: Settings, collector: DocsCollector) -> Published:
    """Store the family's merged results (and a suite whose version changed) in the site's GX store and
    queue their pages for ``render``; returns the file:// links the pages will have."""
    from great_expectations.data_context.types.resource_identifiers import (
        ExpectationSuiteIdentifier,
        ValidationResultIdentifier,
    )

    from pipelines.validate.gx_suites import build_suite

    run_time = dt.datetime.now(dt.UTC)
    with _lock(settings):
        ctx = _file_context(settings)
        versions = _suite_versions(settings)
        pending = _read_pending(settings)
        pages: dict[str, str] = {}
        for page, rules, result in collector.results(run_time):
            suite_id = ExpectationSuiteIdentifier(name=page)
            version = collector.versions.get(page, "")
            if versions.get(page) != version or not version:  # the suite page only when the suite changed
                ctx.suites.add_or_update(build_suite(page, rules))
                versions[page] = version
                pending["suites"].append(page)
            key = ValidationResultIdentifier(suite_id, result.meta["run_id"], collector.family)
            ctx.validation_results_store.store_validation_results(result, key, suite_id)
            _prune(ctx, settings, page)
            pending["results"].append(list(key.to_tuple()))
            (url,) = ctx.get_docs_sites_urls(
                resource_identifier=key, site_name=SITE_NAME, only_if_exists=False
            )
            pages[page] = str(url["site_url"])
        write_json(context_dir(settings) / "suite_versions.json", versions, indent=1)
        write_json(_pending_path(settings), pending)
    return Published(index_url(settings), pages)


def _read_pending(settings: Settings) -> dict[str, list[Any]]:
    path = _pending_path(settings)
    doc = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return {"suites": list(doc.get("suites", [])), "results": list(doc.get("results", []))}


def render(settings: Settings) -> int:
    """Render the pages queued by ``record`` since the last render, and the index: once per run, not once
    per family (Dagster's ``docs/gx`` asset, the docs server on a request, the benchmark). Returns the
    number of pages rendered."""
    if not has_queued_pages(settings):
        return 0
    from great_expectations.data_context.types.resource_identifiers import (
        ExpectationSuiteIdentifier,
        ValidationResultIdentifier,
    )

    with _lock(settings):
        pending = _read_pending(settings)
        ctx = _file_context(settings)
        stored = set(ctx.validation_results_store.list_keys())
        keys: list[Any] = [ExpectationSuiteIdentifier(name=n) for n in dict.fromkeys(pending["suites"])]
        for parts in pending["results"]:
            key = ValidationResultIdentifier.from_tuple(tuple(parts))
            if key in stored:  # pruned since: nothing to render
                keys.append(key)
        if keys or not (site_dir(settings) / "index.html").exists():
            ctx.build_data_docs(site_names=[SITE_NAME], resource_identifiers=keys)
        _pending_path(settings).unlink(missing_ok=True)
    return len(keys)
